package dev.codexclient.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.CodexClientBuilder;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.CodexVersion;
import dev.codexclient.DynamicTool;
import dev.codexclient.ToolResult;
import dev.codexclient.TurnResult;
import dev.codexclient.errors.CodexMethodNotSupportedException;
import dev.codexclient.drift.internal.ClientApiRequirements.Kind;
import dev.codexclient.drift.internal.ProtocolSchema;
import dev.codexclient.drift.internal.SchemaSources;
import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.protocol.CommandExecutionStatus;
import dev.codexclient.protocol.MethodDescriptor;
import dev.codexclient.protocol.MethodVersions;
import dev.codexclient.protocol.ParamsPresence;
import dev.codexclient.protocol.ProtocolJson;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.CodexBinary;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.testkit.ScriptedModelServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The core flows (handshake, thread, streamed turn, command approval, dynamic tool, interrupt) and the differences
 * between versions (a method the server lacks, turn ids) against each codex version configured in
 * {@link CompatVersions} ({@code -Dcodex.compat.versions=0.98.0,0.169.0} and/or {@code -Dcodex.compat.version=X},
 * as the CI matrix passes it), each installed into the cache with npm if needed. Without either property it checks
 * the pinned version. Every run writes the outcome as a markdown table to {@code target/compatibility.md}:
 *
 * <pre>
 * mvn -B verify -pl integration-tests -am -Dtest=CompatibilityTest -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dcodex.compat.versions=0.98.0,0.120.0,0.169.0
 * </pre>
 *
 * <p>Each codex runs with a private {@code CODEX_HOME} (the scripted model's) and a private {@code HOME}.
 */
@Tag("real-codex")
@Timeout(90)
class CompatibilityTest {
    private static final Duration TURN = Duration.ofSeconds(30);
    static final List<String> FLOWS = List.of("handshake", "streamed turn", "command approval",
            "dynamic tool", "interrupt", "method the server lacks", "turn ids");

    /** version → flow → outcome ("✓" or "✗ reason"). */
    private static final Map<String, Map<String, String>> OUTCOMES = new ConcurrentHashMap<>();
    /** version → facts seen on the wire. */
    private static final Map<String, Set<String>> FACTS = new ConcurrentHashMap<>();
    /** version → the schema its binary exports (to know what it should support). */
    private static final Map<String, ProtocolSchema> SCHEMAS = new ConcurrentHashMap<>();

    /** The configured versions; the pinned one when none is configured, so that a plain run skips nothing. */
    static List<String> versions() {
        return CompatVersions.configuredOrPinned();
    }

    static Stream<Arguments> cases() {
        return versions().stream().flatMap(v -> FLOWS.stream().map(f -> Arguments.of(v, f)));
    }

    @ParameterizedTest(name = "codex {0}: {1}")
    @MethodSource("cases")
    void flow(String version, String flow, @TempDir Path home) throws Exception {
        Path binary = CodexBinary.version(version);
        try (RealCodexFixture fixture = new RealCodexFixture(binary)) {
            Codex codex = new Codex(fixture, home);
            Runnable check = switch (flow) {
                case "handshake" -> () -> handshake(codex, version);
                case "streamed turn" -> () -> streamedTurn(codex, version);
                case "command approval" -> () -> commandApproval(codex, version);
                case "dynamic tool" -> () -> dynamicTool(codex, version);
                case "interrupt" -> () -> interrupt(codex, version);
                case "method the server lacks" -> () -> methodTheServerLacks(codex, version, binary);
                case "turn ids" -> () -> turnIds(codex, version);
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

    /** The fixture, with a private HOME for every codex it starts. */
    private record Codex(RealCodexFixture fixture, Path home) {
        CodexClient client(Consumer<CodexClientBuilder> configure) {
            return fixture.client(b -> configure.accept(b.environment("HOME", home.toString())));
        }

        ScriptedModelServer model() {
            return fixture.model;
        }

        Path workspace() {
            return fixture.workspace;
        }

        ThreadStartParams.Builder threadParams() {
            return fixture.threadParams();
        }
    }

    private void handshake(Codex codex, String version) {
        try (CodexClient client = codex.client(b -> { })) {
            assertThat(client.serverInfo().userAgent()).hasValueSatisfying(a -> assertThat(a).contains(version));
            assertThat(client.serverInfo().codexVersion()).contains(CodexVersion.parse(version));
            fact(version, "initialize result: userAgent"
                    + (client.serverInfo().codexHome().isPresent() ? ", codexHome" : "")
                    + (client.serverInfo().platformFamily().isPresent() ? ", platformFamily" : "")
                    + (client.serverInfo().platformOs().isPresent() ? ", platformOs" : ""));
        }
    }

    private void streamedTurn(Codex codex, String version) {
        String text = "Grüße — 漢字 🚀 streamed in pieces.";
        codex.model().enqueue(ModelStep.reply(text).withChunkSize(3));
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

    private void commandApproval(Codex codex, String version) {
        codex.model().enqueue(ModelStep.callTool("exec_command",
                        Map.of("cmd", "printf 'compat\\n' | tee compat.txt", "login", false)),
                ModelStep.reply("written"));
        List<String> asked = new CopyOnWriteArrayList<>();
        try (CodexClient client = codex.client(b -> b.commandApprovals(ApprovalPolicy.sync(req -> {
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
            assertThat(codex.workspace().resolve("compat.txt")).hasContent("compat");

            // Not a pass/fail check: whether this version asks before a command it considers known-safe.
            codex.model().enqueue(ModelStep.callTool("exec_command", Map.of("cmd", "echo safe", "login", false)),
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

    private void dynamicTool(Codex codex, String version) {
        codex.model().enqueue(ModelStep.callTool("lookup_key", Map.of("key", "K-7")), ModelStep.reply("found"));
        try (CodexClient client = codex.client(b -> b.experimentalApi(true).tool(DynamicTool.of("lookup_key",
                "Looks a key up", Key.class, k -> ToolResult.text("value of " + k.key() + " is 42"))))) {
            TurnResult result = client.startThread(codex.threadParams().build()).startTurn("look up K-7")
                    .await(TURN);
            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(codex.model().requests()).hasSizeGreaterThanOrEqualTo(2);
            assertThat(codex.model().requests().get(1).functionCallOutputs().values())
                    .anySatisfy(o -> assertThat(o).contains("value of K-7 is 42"));
        }
    }

    private void interrupt(Codex codex, String version) {
        codex.model().enqueue(ModelStep.stall(Duration.ofSeconds(30)));
        try (CodexClient client = codex.client(b -> { })) {
            CodexThread thread = client.startThread(codex.threadParams().build());
            CodexTurn turn = thread.startTurn("take your time");
            long start = System.nanoTime();
            TurnResult result = turn.interruptAsync().join();
            assertThat(result.status()).isEqualTo(TurnStatus.INTERRUPTED);
            assertThat(result.stalled()).as("settled by the server, not by the client's grace period").isFalse();
            fact(version, "interrupt settles in " + Duration.ofNanos(System.nanoTime() - start).toMillis()
                    + " ms");
        }
    }

    /**
     * The calls of the client API whose methods the binary's own schema lacks ({@code thread/revert} before
     * 0.148.0, {@code turn/steer} and {@code thread/unsubscribe} on 0.98.0) fail with the typed exception, naming
     * the method and the server's version; where the schema has {@code thread/revert}, it works. A method no codex
     * has fails the same way on every version.
     */
    private void methodTheServerLacks(Codex codex, String version, Path binary) {
        Set<String> methods = SCHEMAS.computeIfAbsent(version, v -> ProtocolSchema.read(
                SchemaSources.export(binary, Duration.ofMinutes(2)).bundle())).methods(Kind.CLIENT_REQUEST).keySet();
        boolean hasRevert = methods.contains("thread/revert");
        codex.model().enqueue(ModelStep.reply("first"), ModelStep.stall(Duration.ofSeconds(30)));
        try (CodexClient client = codex.client(b -> { })) {
            CodexThread thread = client.startThread(codex.threadParams().build());
            TurnResult first = thread.startTurn("one").await(TURN);
            if (!methods.contains("turn/steer")) {
                CodexTurn waiting = thread.startTurn("wait");
                assertThatThrownBy(() -> waiting.steerAsync("faster").join())
                        .cause().isInstanceOfSatisfying(CodexMethodNotSupportedException.class, e -> {
                            assertThat(e.method()).contains("turn/steer");
                            assertThat(e.serverVersion()).contains(CodexVersion.parse(version));
                            assertThat(e.sent()).isEqualTo(!MethodVersions.checked().contains(version));
                        });
                assertThat(waiting.interruptAsync().join().status()).isEqualTo(TurnStatus.INTERRUPTED);
                fact(version, "`CodexTurn.steer` → `CodexMethodNotSupportedException` (no `turn/steer`)");
            }
            if (!methods.contains("thread/unsubscribe")) {
                assertThatThrownBy(thread::unsubscribe).isInstanceOfSatisfying(
                        CodexMethodNotSupportedException.class,
                        e -> assertThat(e.method()).contains("thread/unsubscribe"));
                fact(version, "`CodexThread.unsubscribe` → `CodexMethodNotSupportedException` (no"
                        + " `thread/unsubscribe`)");
            }
            if (hasRevert) {
                assertThat(thread.revertTo(first.turnId().orElseThrow()).id()).isEqualTo(thread.id());
            } else {
                // A checked version's method list says it lacks thread/revert: refused unsent; else codex answers.
                boolean checked = MethodVersions.checked().contains(version);
                assertThatThrownBy(() -> thread.revertTo(first.turnId().orElseThrow()))
                        .isInstanceOfSatisfying(CodexMethodNotSupportedException.class, e -> {
                            assertThat(e.method()).contains("thread/revert");
                            assertThat(e.serverVersion()).contains(CodexVersion.parse(version));
                            assertThat(e.serverMethods()).contains("thread/start", "thread/rollback");
                            assertThat(e.sent()).isEqualTo(!checked);
                            if (checked) {
                                assertThat(e.versionsWithMethod()).isNotEmpty().doesNotContain(version);
                                fact(version, "`thread/revert` (missing) → refused unsent; the versions that have"
                                        + " it: " + e.versionsWithMethod());
                            } else {
                                fact(version, "`thread/revert` (missing) → `" + e.code() + " " + shortened(e) + "`");
                            }
                        });
            }
            MethodDescriptor<Object, JsonNode> unknown = new MethodDescriptor<>("compat/noSuchMethod", Object.class,
                    JsonNode.class, ParamsPresence.OPTIONAL, false);
            assertThatThrownBy(() -> client.rpc().call(unknown, Map.of()).join())
                    .hasCauseInstanceOf(CodexMethodNotSupportedException.class)
                    .cause().satisfies(c -> {
                        CodexMethodNotSupportedException e = (CodexMethodNotSupportedException) c;
                        assertThat(e.serverVersion()).contains(CodexVersion.parse(version));
                        fact(version, "an unknown method → JSON-RPC error `" + e.code() + " " + shortened(e) + "`");
                    });
        }
    }

    private static String shortened(CodexMethodNotSupportedException e) {
        String m = e.serverMessage();
        int list = m.indexOf(", expected one of");
        return (list < 0 ? m : m.substring(0, list) + ", expected one of …").replace("`", "'");
    }

    /**
     * The turn handle's id is the one every event of the turn carries. What {@code thread/read} calls the same
     * turn differs by version: the same id from 0.100.0 on, {@code turn-<position>} before.
     */
    private void turnIds(Codex codex, String version) {
        codex.model().enqueue(ModelStep.reply("first"), ModelStep.reply("second"));
        List<String> eventTurnIds = new CopyOnWriteArrayList<>();
        try (CodexClient client = codex.client(b -> { })) {
            CodexThread thread = client.startThread(codex.threadParams().build());
            thread.onEvent(n -> turnIdOf(n).ifPresent(eventTurnIds::add));
            List<String> live = new ArrayList<>();
            for (String prompt : List.of("one", "two")) {
                CodexTurn turn = thread.startTurn(prompt);
                TurnResult result = turn.await(TURN);
                assertThat(result.turnId()).contains(turn.id());
                live.add(turn.id());
            }
            assertThat(eventTurnIds).as("every event of the turns carries the handle's id").isNotEmpty()
                    .allSatisfy(id -> assertThat(live).contains(id));
            assertThat(new TreeSet<>(eventTurnIds)).containsExactlyInAnyOrderElementsOf(live);
            List<String> stored = thread.read().turns().stream().map(t -> t.id()).toList();
            assertThat(stored).hasSize(2);
            if (stored.equals(live)) {
                fact(version, "turn ids: `turn/start`, the turn's events and `thread/read` agree");
            } else {
                assertThat(stored).containsExactly("turn-1", "turn-2");
                fact(version, "turn ids: `turn/start` and the turn's events say " + live.stream()
                        .map(i -> "`" + i + "`").toList() + ", `thread/read` says " + stored.stream()
                        .map(i -> "`" + i + "`").toList());
            }
        }
    }

    private static Optional<String> turnIdOf(ServerNotification n) {
        JsonNode params = ProtocolJson.mapper().valueToTree(n).path("params");
        String id = params.path("turnId").asText(params.path("turn").path("id").asText(""));
        return id.isEmpty() ? Optional.empty() : Optional.of(id);
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
        Map<String, Set<String>> sorted = new TreeMap<>(Comparator.comparing(CodexVersion::parse));
        sorted.putAll(facts);
        if (!sorted.isEmpty()) {
            md.append("\nSeen on the wire:\n");
            sorted.forEach((v, f) -> new TreeSet<>(f).forEach(line ->
                    md.append("- codex ").append(v).append(": ").append(line).append('\n')));
        }
        return md.toString();
    }
}
