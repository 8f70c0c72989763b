package dev.codexclient.it.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.CodexClientBuilder;
import dev.codexclient.CodexClient;
import dev.codexclient.errors.CodexException;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The invariants every fault case checks, and the bookkeeping behind the suite's table.
 *
 * <p>A case runs in {@link #run}: a baseline of threads, descriptors and child processes is taken, the body runs
 * under a hard time bound (no hang), and afterwards everything must be back to the baseline.
 */
final class FaultHarness {
    /** The bound of one case's body; a hang fails the case instead of the build. */
    static final Duration CASE_LIMIT = Duration.ofSeconds(40);

    private FaultHarness() {
    }

    /** What a case body reports for the table. */
    static final class Figures {
        long sent;
        long received;
        long answered;
        String outcome = "";

        Figures sent(long n) {
            sent = n;
            return this;
        }

        Figures received(long n) {
            received = n;
            return this;
        }

        Figures answered(long n) {
            answered = n;
            return this;
        }

        Figures outcome(String text) {
            outcome = text;
            return this;
        }
    }

    interface Body {
        void run(Figures figures) throws Exception;
    }

    private static boolean warm;

    /**
     * One throwaway round trip per JVM, in memory and through a child: the JDK creates some resources once, on
     * first use (the process reaper, loopback socket plumbing, class loading); they belong to the baseline, not to
     * the first case that happens to run.
     */
    static synchronized void warmUp() {
        if (warm) {
            return;
        }
        warm = true;
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            try (CodexClient client = child(fake).build()) {
                client.startThread().startTurn("warm up").await(Duration.ofSeconds(10));
            }
            try (CodexClient client = inMemory(fake).build()) {
                client.startThread().startTurn("warm up").await(Duration.ofSeconds(10));
            }
        }
    }

    /** Runs one case bounded in time, checks for leaks after it, and adds its row to the report. */
    static void run(String name, Body body) {
        warmUp();
        Leaks baseline = Leaks.baseline();
        Figures figures = new Figures();
        long started = System.nanoTime();
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread runner = new Thread(() -> {
            try {
                body.run(figures);
                done.complete(null);
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        }, "fault-case-" + name.replace(' ', '-'));
        runner.setDaemon(true);
        runner.start();
        Throwable failure = null;
        try {
            done.get(CASE_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            runner.interrupt();
            failure = new AssertionError("case '" + name + "' hung: still running after " + CASE_LIMIT + "\n"
                    + stack(runner));
        } catch (ExecutionException e) {
            failure = e.getCause();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure = e;
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        String leaks = baseline.awaitBaseline(Duration.ofSeconds(5));
        ReliabilityReport.add(new ReliabilityReport.Row(name, figures.sent, figures.received, figures.answered,
                leaks, millis, failure == null ? figures.outcome : "FAILED: " + failure));
        if (failure instanceof AssertionError a) {
            throw a;
        }
        if (failure != null) {
            throw new AssertionError("case '" + name + "' failed", failure);
        }
        assertThat(leaks).as("threads, descriptors and processes left behind by '%s'", name).isEqualTo("none");
    }

    private static String stack(Thread t) {
        StringBuilder sb = new StringBuilder();
        for (StackTraceElement e : t.getStackTrace()) {
            sb.append("    at ").append(e).append('\n');
        }
        return sb.toString();
    }

    // ------------------------------------------------------------------------------------------------ clients

    /** A client on a real child process that relays to {@code fake}. */
    static CodexClientBuilder child(FakeCodexAppServer fake) {
        return base().command(fake.childProcessCommand());
    }

    /** A client on an in-memory connection to {@code fake}. */
    static CodexClientBuilder inMemory(FakeCodexAppServer fake) {
        return base().transport(fake.connectInMemory());
    }

    static CodexClientBuilder base() {
        return CodexClient.builder()
                .clientInfo("codex-client-reliability", "reliability suite", "0")
                .requestTimeout(Duration.ofSeconds(15))
                .initializeTimeout(Duration.ofSeconds(15))
                .interruptGracePeriod(Duration.ofSeconds(2));
    }

    // ------------------------------------------------------------------------------------------------ notifications

    /** Records every notification the client delivers, per delivery lane (codex thread), in delivery order. */
    static final class Delivered implements Consumer<ServerNotification> {
        private final List<String[]> events = new CopyOnWriteArrayList<>();

        @Override
        public void accept(ServerNotification n) {
            JsonNode tree = dev.codexclient.protocol.ProtocolJson.mapper().valueToTree(n);
            JsonNode params = n instanceof ServerNotification.Unrecognized u ? u.raw().path("params")
                    : tree.path("params");
            events.add(new String[] {lane(params), key(n.method(), params)});
        }

        int count() {
            return events.size();
        }

        /** Keys of delivered {@code warning} notifications, in order. */
        List<String> warnings() {
            return events.stream().filter(e -> e[1].startsWith("warning:")).map(e -> e[1].substring(8)).toList();
        }

        Map<String, List<String>> byLane() {
            Map<String, List<String>> lanes = new LinkedHashMap<>();
            for (String[] e : events) {
                lanes.computeIfAbsent(e[0], k -> new ArrayList<>()).add(e[1]);
            }
            return lanes;
        }
    }

    /** The notifications {@code fake} wrote, per lane, in wire order. */
    static Map<String, List<String>> sentByLane(FakeCodexAppServer fake) {
        Map<String, List<String>> lanes = new LinkedHashMap<>();
        for (JsonNode m : fake.sentMessages()) {
            if (m.has("method") && !m.has("id")) {
                JsonNode params = m.path("params");
                lanes.computeIfAbsent(lane(params), k -> new ArrayList<>()).add(key(m.path("method").asText(),
                        params));
            }
        }
        return lanes;
    }

    static long sentNotifications(FakeCodexAppServer fake) {
        return fake.sentMessages().stream().filter(m -> m.has("method") && !m.has("id")).count();
    }

    /**
     * Every notification the fake sent was delivered exactly once, in wire order per codex thread. With
     * {@code prefixOnly} (the connection died mid-stream), what was delivered is an in-order prefix of each lane.
     *
     * <p>Without {@code prefixOnly}, first waits (up to 10 s) for what was delivered to equal what was sent: the
     * fake may still be writing (its {@code thread/status/changed} follows {@code turn/completed}, so a turn's
     * result can come before it), and a lane may still hold what it read. Both sides are read again on every
     * look; lanes that never match fail below, with the first difference.
     */
    static void assertExactlyOnceInOrder(FakeCodexAppServer fake, Delivered delivered, boolean prefixOnly)
            throws InterruptedException {
        if (!prefixOnly) {
            holdsWithin(Duration.ofSeconds(10), () -> delivered.byLane().equals(sentByLane(fake)));
        }
        Map<String, List<String>> sent = sentByLane(fake);
        Map<String, List<String>> got = delivered.byLane();
        for (Map.Entry<String, List<String>> lane : got.entrySet()) {
            assertThat(sent).as("lane %s was delivered but never sent", lane.getKey()).containsKey(lane.getKey());
        }
        for (Map.Entry<String, List<String>> lane : sent.entrySet()) {
            List<String> actual = got.getOrDefault(lane.getKey(), List.of());
            List<String> expected = lane.getValue();
            if (prefixOnly) {
                assertThat(actual.size()).as("lane %s delivered more than sent", lane.getKey())
                        .isLessThanOrEqualTo(expected.size());
                expected = expected.subList(0, actual.size());
            }
            if (!actual.equals(expected)) {
                fail("lane '%s': delivered %d notifications, sent %d; first difference at %d", lane.getKey(),
                        actual.size(), expected.size(), firstDifference(actual, expected));
            }
        }
    }

    private static int firstDifference(List<String> a, List<String> b) {
        int i = 0;
        while (i < a.size() && i < b.size() && a.get(i).equals(b.get(i))) {
            i++;
        }
        return i;
    }

    private static String lane(JsonNode params) {
        if (params.path("threadId").isTextual()) {
            return params.path("threadId").asText();
        }
        if (params.path("thread").path("id").isTextual()) {
            return params.path("thread").path("id").asText();
        }
        return "(global)";
    }

    private static String key(String method, JsonNode params) {
        if (params.path("message").isTextual()) {
            return method + ":" + params.path("message").asText();
        }
        if (params.path("delta").isTextual()) {
            return method + ":" + params.path("itemId").asText() + ":" + params.path("delta").asText();
        }
        if (params.path("item").path("id").isTextual()) {
            return method + ":" + params.path("item").path("id").asText();
        }
        return method;
    }

    // ------------------------------------------------------------------------------------------------ requests

    /**
     * How many server requests the client answered, after checking that none was answered twice: every response
     * the fake received has an id that appears once.
     */
    static long answeredExactlyOnce(FakeCodexAppServer fake) {
        Map<String, Integer> replies = new HashMap<>();
        for (JsonNode m : fake.receivedMessages()) {
            if (m.isObject() && !m.has("method") && m.has("id") && (m.has("result") || m.has("error"))) {
                replies.merge(m.get("id").toString(), 1, Integer::sum);
            }
        }
        replies.forEach((id, n) -> assertThat(n).as("replies to server request %s", id).isEqualTo(1));
        return replies.size();
    }

    // ------------------------------------------------------------------------------------------------ calls

    /**
     * Every future is done (bounded wait) and each outcome is typed: a value, or a {@link CodexException}
     * subclass. Returns the outcomes by exception simple name (or "ok").
     */
    static Map<String, Integer> assertTypedOutcomes(List<? extends CompletableFuture<?>> calls, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        Map<String, Integer> outcomes = new LinkedHashMap<>();
        for (CompletableFuture<?> call : calls) {
            long left = Math.max(1, deadline - System.nanoTime());
            try {
                call.get(left, TimeUnit.NANOSECONDS);
                outcomes.merge("ok", 1, Integer::sum);
            } catch (TimeoutException e) {
                fail("a call was still pending after %s", within);
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                assertThat(cause).as("outcome of a call").isInstanceOf(CodexException.class);
                outcomes.merge(cause.getClass().getSimpleName(), 1, Integer::sum);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted");
            }
        }
        return outcomes;
    }

    static void await(String what, Duration within, BooleanSupplier condition) throws InterruptedException {
        if (!holdsWithin(within, condition)) {
            fail("timed out after %s waiting for %s", within, what);
        }
    }

    /** Waits (in real time, boundedly) for {@code condition}; {@return whether it held before {@code within} passed} */
    static boolean holdsWithin(Duration within, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(5);
        }
        return true;
    }
}
