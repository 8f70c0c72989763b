package dev.codexclient.approvals.bench;

import dev.codexclient.ApprovalDecision;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexTurn;
import dev.codexclient.approvals.ApprovalInbox;
import dev.codexclient.approvals.EntryState;
import dev.codexclient.approvals.InboxQuery;
import dev.codexclient.approvals.Requests;
import dev.codexclient.approvals.boot.Http;
import dev.codexclient.approvals.boot.InboxTestApplication;
import dev.codexclient.approvals.boot.Instances;
import dev.codexclient.approvals.boot.Services;
import dev.codexclient.approvals.store.InMemoryInboxStore;
import dev.codexclient.approvals.store.JdbcInboxStore;
import dev.codexclient.approvals.testing.Entries;
import dev.codexclient.approvals.testing.RealCodex;
import dev.codexclient.approvals.testing.TestPostgres;
import dev.codexclient.testkit.ModelStep;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The inbox's figures (BENCHMARKS.md, figure 13): a benchmark run by hand, not a test (it asserts nothing about time;
 * tagged {@code benchmark}, which no build runs unless asked):
 * <pre>
 * mvn -B -Pbrowser-tests -pl codex-client-approvals-browser-tests -am verify \
 *     -Dtest='dev/codexclient/approvals/bench/**' -Dgroups=benchmark -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 * It writes {@code target/inbox-benchmark.md}. Measured on one service (this JVM) on PostgreSQL, the real codex, and
 * headless Chromium: request to visible on the page, decision to the command's start (on the holding instance, and
 * through a second instance in a JVM of its own), the list API and the page with 1,000 pending entries, and the
 * heap a pending entry costs.
 */
@Tag("benchmark")
class InboxBenchmark {
    private static final int VISIBLE_SAMPLES = 40;
    private static final int COMMAND_SAMPLES = 8;
    private static final int PENDING = 1_000;
    private final StringBuilder report = new StringBuilder();

    @Test
    void figures() throws Exception {
        report.append("# Inbox benchmark (").append(java.time.Instant.now()).append(")\n\n");
        String url = TestPostgres.shared().url(TestPostgres.shared().newDatabaseName());
        try (RealCodex codex = new RealCodex();
             Instances.Instance b = Instances.start("b", "spring.datasource.url=" + url, "codex.enabled=false",
                     "codex.approvals.inbox.instance-id=b", "codex.approvals.inbox.tick=1h");
             ConfigurableApplicationContext a = Services.withRealCodex(codex, "--spring.datasource.url=" + url,
                     "--codex.approvals.inbox.instance-id=a", "--logging.level.root=warn")) {
            int port = Services.port(a);
            ApprovalInbox inbox = a.getBean(ApprovalInbox.class);
            visible(inbox, port);
            commandStart(a, codex, new Http(port).signIn("alice", InboxTestApplication.PASSWORD), "the holding instance (A)");
            commandStart(a, codex, new Http(b.port()).signIn("bob", InboxTestApplication.PASSWORD),
                    "another instance (B, its own JVM, NOTIFY)");
            thousand(inbox, port);
        }
        memory();
        Path out = Path.of("target", "inbox-benchmark.md");
        Files.writeString(out, report);
        System.out.println(report);
    }

    /** From the request reaching the policy to its card in the page's DOM (a MutationObserver's clock). */
    private void visible(ApprovalInbox inbox, int port) throws Exception {
        try (var browser = new dev.codexclient.approvals.browser.BenchBrowser(port)) {
            browser.signIn("alice");
            browser.script("window.seen = {}; new MutationObserver(() => document.querySelectorAll("
                    + "'#pending article.entry').forEach(c => { if (!window.seen[c.dataset.id]) "
                    + "window.seen[c.dataset.id] = Date.now(); })).observe(document.getElementById('pending'), "
                    + "{childList: true, subtree: true});");
            List<Long> ms = new ArrayList<>();
            for (int i = 0; i < VISIBLE_SAMPLES; i++) {
                String thread = "visible-" + i;
                long t0 = System.currentTimeMillis();
                inbox.policy().decide(Requests.command(thread, "call-" + i, "make " + i));
                String id;
                try (Entries entries = new Entries(inbox)) {
                    id = entries.await(e -> e.threadId().equals(thread), Duration.ofSeconds(30)).id();
                }
                Object at = null;
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (at == null && System.nanoTime() < deadline) {
                    at = browser.script("return window.seen['" + id + "'] || null");
                }
                ms.add(((Number) at).longValue() - t0);
            }
            line("Request to visible on the page (" + VISIBLE_SAMPLES + " requests, one browser)", ms, "ms");
        }
    }

    /** From the decision's HTTP request to the command's first instruction (it writes its own start time). */
    private void commandStart(ConfigurableApplicationContext a, RealCodex codex, Http decider, String where)
            throws Exception {
        ApprovalInbox inbox = a.getBean(ApprovalInbox.class);
        List<Long> ms = new ArrayList<>();
        for (int i = 0; i < COMMAND_SAMPLES; i++) {
            String file = "started-" + System.nanoTime() + ".txt";
            String command = "date +%s%N | tee " + file;
            codex.model.when(r -> r.lastUserText().equals("run " + file), ModelStep.exec(command),
                    ModelStep.reply("Done."));
            CodexTurn turn = a.getBean(CodexClient.class).startThread(codex.threadParams()).startTurn("run " + file);
            String id;
            try (Entries entries = new Entries(inbox)) {
                id = entries.await(e -> e.state() == EntryState.PENDING && e.request().path("command").asText()
                        .contains(file), Duration.ofSeconds(90)).id();
            }
            long t0 = System.currentTimeMillis() * 1_000_000L;
            decider.decide(id, "accept");
            turn.await(Duration.ofSeconds(90));
            long started = Long.parseLong(Files.readString(codex.workspace.resolve(file)).strip());
            ms.add((started - t0) / 1_000_000L);
        }
        line("Decision to the command's start, decided on " + where + " (" + COMMAND_SAMPLES + " turns)", ms, "ms");
    }

    /** The list API and the page with 1,000 entries pending. */
    private void thousand(ApprovalInbox inbox, int port) throws Exception {
        List<CompletableFuture<ApprovalDecision>> held = new ArrayList<>();
        for (int i = 0; i < PENDING; i++) {
            held.add(inbox.policy().decide(Requests.command("bulk-" + i, "call-" + i, "make " + i)).toCompletableFuture());
        }
        inbox.tick();
        long pending = inbox.list(InboxQuery.pending()).total();
        Http alice = new Http(port).signIn("alice", InboxTestApplication.PASSWORD);
        for (String query : List.of("state=pending&size=50", "state=pending&size=200", "state=pending&size=50&page=19")) {
            List<Long> us = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                long t = System.nanoTime();
                alice.get("/api/entries?" + query, null);
                us.add((System.nanoTime() - t) / 1_000);
            }
            line("GET /api/entries?" + query + " with " + pending + " pending (60 calls, after 10 warm-up)",
                    us.subList(10, us.size()), "µs");
        }
        try (var browser = new dev.codexclient.approvals.browser.BenchBrowser(port)) {
            browser.signIn("alice");
            List<Long> ms = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                long t = System.nanoTime();
                browser.reloadUntilCards(200);
                ms.add((System.nanoTime() - t) / 1_000_000);
            }
            line("The page with " + pending + " pending: reload until its 200 newest cards are drawn (6 loads, after 1)",
                    ms.subList(1, ms.size()), "ms");
        }
    }

    /** The heap a pending entry costs: the held request (every store) and, in memory, the entry. */
    private void memory() throws Exception {
        for (boolean jdbc : new boolean[] {false, true}) {
            ApprovalInbox inbox = ApprovalInbox.builder().tick(Duration.ZERO)
                    .store(jdbc ? JdbcInboxStore.builder(TestPostgres.shared().newDatabase()).build()
                            : new InMemoryInboxStore()).build();
            List<Object> keep = new ArrayList<>();
            long before = heap();
            for (int i = 0; i < PENDING; i++) {
                keep.add(inbox.policy().decide(Requests.command("mem-" + i, "call-" + i,
                        "cargo test --workspace -- --nocapture " + i)));
            }
            inbox.tick();
            long after = heap();
            report.append("- Heap per pending entry, ").append(jdbc ? "JDBC store (what the instance holds)"
                    : "memory store (held + stored)").append(": ").append((after - before) / PENDING)
                    .append(" bytes (").append(PENDING).append(" entries)\n");
            inbox.close();
            keep.clear();
        }
    }

    private static long heap() throws InterruptedException {
        LongSupplier used = () -> ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(100);    // lets the collector finish; a measurement, not a synchronisation
        }
        return used.getAsLong();
    }

    private void line(String what, List<Long> samples, String unit) {
        List<Long> s = new ArrayList<>(samples);
        Collections.sort(s);
        long p50 = s.get(s.size() / 2);
        long p95 = s.get(Math.min(s.size() - 1, (int) Math.ceil(s.size() * 0.95) - 1));
        report.append("- ").append(what).append(": p50 ").append(p50).append(' ').append(unit).append(", p95 ")
                .append(p95).append(' ').append(unit).append(", min ").append(s.get(0)).append(", max ")
                .append(s.get(s.size() - 1)).append('\n');
    }
}
