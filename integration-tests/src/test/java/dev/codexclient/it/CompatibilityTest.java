package dev.codexclient.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.DynamicTool;
import dev.codexclient.ToolResult;
import dev.codexclient.TurnResult;
import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.protocol.CommandExecutionStatus;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.CodexBinary;
import dev.codexclient.testkit.ModelStep;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The core flows (handshake, thread, streamed turn, command approval, dynamic tool, interrupt) against each codex
 * version named in the system property {@code codex.compat.versions} (comma-separated, e.g.
 * {@code 0.98.0,0.169.0}), each installed into the cache with npm if needed. Without the property the class is
 * skipped. Every run writes the outcome as a markdown table to {@code target/compatibility.md}:
 *
 * <pre>
 * mvn -B verify -pl integration-tests -am -Dtest=CompatibilityTest -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dcodex.compat.versions=0.98.0,0.169.0
 * </pre>
 */
@Tag("real-codex")
@Timeout(90)
class CompatibilityTest {
    static final String VERSIONS_PROPERTY = "codex.compat.versions";
    private static final Duration TURN = Duration.ofSeconds(30);
    private static final List<String> FLOWS = List.of("handshake", "streamed turn", "command approval",
            "dynamic tool", "interrupt");

    /** version → flow → outcome ("✓" or "✗ reason"). */
    private static final Map<String, Map<String, String>> OUTCOMES = new ConcurrentHashMap<>();
    /** version → facts seen on the wire. */
    private static final Map<String, Set<String>> FACTS = new ConcurrentHashMap<>();

    static List<String> versions() {
        String configured = System.getProperty(VERSIONS_PROPERTY, "").strip();
        return configured.isEmpty() ? List.of()
                : Arrays.stream(configured.split(",")).map(String::strip).filter(v -> !v.isEmpty()).toList();
    }

    static Stream<Arguments> cases() {
        List<String> versions = versions();
        if (versions.isEmpty()) {
            // One placeholder case that is skipped with a reason (JUnit fails a parameterized test without cases).
            return Stream.of(Arguments.of("none", "none"));
        }
        return versions.stream().flatMap(v -> FLOWS.stream().map(f -> Arguments.of(v, f)));
    }

    @ParameterizedTest(name = "codex {0}: {1}")
    @MethodSource("cases")
    void flow(String version, String flow) throws Exception {
        assumeFalse(versions().isEmpty(), "no codex versions to check: set -D" + VERSIONS_PROPERTY
                + "=0.98.0,0.169.0 (comma-separated) to run the compatibility matrix");
        Path binary = CodexBinary.version(version);
        try (RealCodexFixture codex = new RealCodexFixture(binary)) {
            Runnable check = switch (flow) {
                case "handshake" -> () -> handshake(codex, version);
                case "streamed turn" -> () -> streamedTurn(codex, version);
                case "command approval" -> () -> commandApproval(codex, version);
                case "dynamic tool" -> () -> dynamicTool(codex, version);
                case "interrupt" -> () -> interrupt(codex, version);
                default -> throw new IllegalArgumentException(flow);
            };
            try {
                check.run();
                record(version, flow, "✓");
            } catch (AssertionError | RuntimeException e) {
                record(version, flow, "✗ " + firstLine(e));
                throw e;
            }
        }
    }

    private void handshake(RealCodexFixture codex, String version) {
        try (CodexClient client = codex.client(b -> { })) {
            assertThat(client.serverInfo().userAgent()).hasValueSatisfying(a -> assertThat(a).contains(version));
            fact(version, "initialize result: userAgent"
                    + (client.serverInfo().codexHome().isPresent() ? ", codexHome" : "")
                    + (client.serverInfo().platformFamily().isPresent() ? ", platformFamily" : "")
                    + (client.serverInfo().platformOs().isPresent() ? ", platformOs" : ""));
        }
    }

    private void streamedTurn(RealCodexFixture codex, String version) {
        String text = "Grüße — 漢字 🚀 streamed in pieces.";
        codex.model.enqueue(ModelStep.reply(text).withChunkSize(3));
        List<ServerNotification> all = new CopyOnWriteArrayList<>();
        try (CodexClient client = codex.client(b -> b.onNotification(all::add))) {
            CodexTurn turn = client.startThread(codex.threadParams().build()).startTurn("stream please");
            StringBuilder streamed = new StringBuilder();
            turn.onAgentMessageDelta(d -> streamed.append(d.delta()));
            TurnResult result = turn.await(TURN);
            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(streamed.toString()).isEqualTo(text);
            assertThat(result.finalText()).isEqualTo(text);
            assertThat(result.itemsOf(ThreadItem.AgentMessage.class)).extracting(ThreadItem.AgentMessage::text)
                    .containsExactly(text);
            long legacy = all.stream().filter(n -> n.method() != null && n.method().startsWith("codex/event/"))
                    .count();
            if (legacy > 0) {
                fact(version, "sends legacy `codex/event/*` notifications next to the v2 ones (" + legacy
                        + " in one short turn); delivered as `ServerNotification.Unrecognized`");
            }
            Set<String> unrecognized = new TreeSet<>();
            all.stream().filter(ServerNotification.Unrecognized.class::isInstance).map(ServerNotification::method)
                    .filter(m -> m != null && !m.startsWith("codex/event/")).forEach(unrecognized::add);
            if (!unrecognized.isEmpty()) {
                fact(version, "notifications not in the pinned schema (or not matching it), delivered as"
                        + " `Unrecognized`: " + unrecognized);
            }
            all.stream().filter(ServerNotification.TurnCompleted.class::isInstance)
                    .map(n -> ((ServerNotification.TurnCompleted) n).params().turn())
                    .filter(t -> t.items() != null && t.items().isEmpty())
                    .findAny().ifPresent(t -> fact(version, "`turn/completed` carries `turn.items: []`; the"
                            + " result's items come from `item/completed`"));
        }
    }

    private void commandApproval(RealCodexFixture codex, String version) {
        codex.model.enqueue(ModelStep.callTool("exec_command",
                        Map.of("cmd", "printf 'compat\\n' | tee compat.txt", "login", false)),
                ModelStep.reply("written"));
        List<String> asked = new CopyOnWriteArrayList<>();
        try (CodexClient client = codex.client(b -> b.onCommandApproval(ApprovalPolicy.sync(req -> {
            asked.add(String.valueOf(req.params().command()));
            return ApprovalDecision.ACCEPT;
        })))) {
            TurnResult result = client.startThread(codex.threadParams().build()).startTurn("write compat.txt")
                    .await(TURN);
            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(asked).singleElement().asString().contains("tee compat.txt");
            assertThat(result.itemsOf(ThreadItem.CommandExecution.class)).singleElement().satisfies(c -> {
                assertThat(c.status()).isEqualTo(CommandExecutionStatus.COMPLETED);
                assertThat(c.aggregatedOutput()).contains("compat");
            });
            assertThat(codex.workspace.resolve("compat.txt")).hasContent("compat");

            // Not a pass/fail check: whether this version asks before a command it considers known-safe.
            codex.model.enqueue(ModelStep.callTool("exec_command", Map.of("cmd", "echo safe", "login", false)),
                    ModelStep.reply("echoed"));
            asked.clear();
            TurnResult safe = client.startThread(codex.threadParams().build()).startTurn("echo something")
                    .await(TURN);
            assertThat(safe.status()).isEqualTo(TurnStatus.COMPLETED);
            fact(version, "a bare `echo` under `approvalPolicy: untrusted` "
                    + (asked.isEmpty() ? "runs without asking (known-safe command)" : "asks for approval"));
        }
    }

    record Key(String key) {
    }

    private void dynamicTool(RealCodexFixture codex, String version) {
        codex.model.enqueue(ModelStep.callTool("lookup_key", Map.of("key", "K-7")), ModelStep.reply("found"));
        try (CodexClient client = codex.client(b -> b.experimentalApi(true).tool(DynamicTool.of("lookup_key",
                "Looks a key up", Key.class, k -> ToolResult.text("value of " + k.key() + " is 42"))))) {
            TurnResult result = client.startThread(codex.threadParams().build()).startTurn("look up K-7")
                    .await(TURN);
            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(codex.model.requests()).hasSizeGreaterThanOrEqualTo(2);
            assertThat(codex.model.requests().get(1).functionCallOutputs().values())
                    .anySatisfy(o -> assertThat(o).contains("value of K-7 is 42"));
        }
    }

    private void interrupt(RealCodexFixture codex, String version) {
        codex.model.enqueue(ModelStep.stall(Duration.ofSeconds(30)));
        try (CodexClient client = codex.client(b -> { })) {
            CodexThread thread = client.startThread(codex.threadParams().build());
            CodexTurn turn = thread.startTurn("take your time");
            long start = System.nanoTime();
            TurnResult result = turn.interrupt().join();
            assertThat(result.status()).isEqualTo(TurnStatus.INTERRUPTED);
            assertThat(result.stalled()).as("settled by the server, not by the client's grace period").isFalse();
            fact(version, "interrupt settles in " + Duration.ofNanos(System.nanoTime() - start).toMillis()
                    + " ms");
        }
    }

    private static void record(String version, String flow, String outcome) {
        OUTCOMES.computeIfAbsent(version, v -> new ConcurrentHashMap<>()).put(flow, outcome);
    }

    private static void fact(String version, String fact) {
        FACTS.computeIfAbsent(version, v -> ConcurrentHashMap.newKeySet()).add(fact);
    }

    private static String firstLine(Throwable e) {
        String message = String.valueOf(e.getMessage()).strip().replaceAll("\\s+", " ");
        String text = e.getClass().getSimpleName() + ": " + message;
        return (text.length() > 200 ? text.substring(0, 200) + "…" : text).replace("|", "\\|");
    }

    /** Writes the table of this run to {@code target/compatibility.md}. */
    @AfterAll
    static void writeTable() throws IOException {
        if (OUTCOMES.isEmpty()) {
            return;
        }
        String table = table(versions(), OUTCOMES, FACTS);
        Path out = Path.of("target", "compatibility.md");
        Files.createDirectories(out.getParent());
        Files.writeString(out, table, StandardCharsets.UTF_8);
        System.out.println(table);
    }

    static String table(List<String> versions, Map<String, Map<String, String>> outcomes,
                        Map<String, Set<String>> facts) {
        StringBuilder md = new StringBuilder("| Flow |");
        versions.forEach(v -> md.append(" codex ").append(v).append(" |"));
        md.append("\n|---|");
        versions.forEach(v -> md.append("---|"));
        md.append('\n');
        for (String flow : FLOWS) {
            md.append("| ").append(flow).append(" |");
            for (String v : versions) {
                md.append(' ').append(outcomes.getOrDefault(v, Map.of()).getOrDefault(flow, "not run"))
                        .append(" |");
            }
            md.append('\n');
        }
        Map<String, Set<String>> sorted = new TreeMap<>(facts);
        if (!sorted.isEmpty()) {
            md.append("\nSeen on the wire:\n");
            sorted.forEach((v, f) -> new TreeSet<>(f).forEach(line ->
                    md.append("- codex ").append(v).append(": ").append(line).append('\n')));
        }
        return md.toString();
    }
}
