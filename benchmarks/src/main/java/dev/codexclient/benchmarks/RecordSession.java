package dev.codexclient.benchmarks;

import dev.codexclient.ApprovalPolicy;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.DynamicTool;
import dev.codexclient.ToolResult;
import dev.codexclient.TurnResult;
import dev.codexclient.protocol.AskForApproval;
import dev.codexclient.protocol.SandboxMode;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.testkit.CodexBinary;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.testkit.ScriptedModelServer;
import dev.codexclient.testkit.WireRecorder;
import dev.codexclient.transport.StdioTransport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Records a session of the real codex app-server (the pinned version, from the testkit's cache) driven by the
 * testkit's scripted model through every kind of turn the SDK handles: streamed replies, commands with and without
 * approval (with streamed output), patches with a file-change approval, a dynamic tool, structured output. The
 * result is a {@link WireRecorder} file, the format {@link Recording} reads; {@code codex-0.169.0-scenarios.jsonl}
 * in the resources is its output.
 *
 * <p>Run it on the benchmarks' class path (the reactor's classes of core, protocol and testkit, then the
 * dependencies); the first argument is the output file, the second the number of rounds:
 * <pre>
 * java -cp &lt;class path&gt; dev.codexclient.benchmarks.RecordSession \
 *     benchmarks/src/main/resources/real-traffic/codex-0.169.0-scenarios.jsonl 12
 * </pre>
 * It needs the pinned codex in the testkit's cache ({@link CodexBinary#pinned()}); a round takes a few seconds.
 * The wire differs between runs only in ids, timestamps, temporary paths, durations and the interleaving of
 * events codex emits concurrently.
 */
public final class RecordSession {
    private static final Duration TURN = Duration.ofSeconds(60);

    private RecordSession() {
    }

    /** The output of a structured turn. */
    public record Verdict(boolean safe, List<String> risks) {
    }

    /** The argument of the dynamic tool. */
    public record Key(String key) {
    }

    public static void main(String[] args) throws IOException {
        Path out = Path.of(args.length > 0 ? args[0] : "codex-0.169.0-scenarios.jsonl");
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 12;
        Path workspace = Files.createTempDirectory("codex-record-ws");
        Path home = Files.createTempDirectory("codex-record-home");
        AtomicInteger notifications = new AtomicInteger();
        try (ScriptedModelServer model = ScriptedModelServer.start()) {
            StdioTransport.Builder stdio = StdioTransport.builder()
                    .executable(CodexBinary.pinned())
                    .codexHome(model.codexHome())
                    .workingDirectory(workspace)
                    .environment("HOME", home.toString());
            ScriptedModelServer.CLEARED_VARIABLES.forEach(stdio::removeEnvironment);
            WireRecorder recorded = WireRecorder.wrap(stdio.build(), out);
            try (CodexClient client = CodexClient.builder()
                    .transport(recorded)
                    .clientInfo("codex-client-benchmarks", "codex-client benchmark recording", "0")
                    .requestTimeout(Duration.ofSeconds(60))
                    .experimentalApi(true)
                    .commandApprovals(ApprovalPolicy.acceptAll())
                    .fileChangeApprovals(ApprovalPolicy.acceptAll())
                    .tool(DynamicTool.of("lookup_key", "Looks a key up", Key.class,
                            k -> ToolResult.text("value of " + k.key() + " is 42")))
                    .onNotification(n -> notifications.incrementAndGet())
                    .build()) {
                for (int round = 0; round < rounds; round++) {
                    round(client, model, workspace, round);
                    System.out.printf("round %d: %d notifications so far%n", round + 1, notifications.get());
                }
            }
        }
        System.out.printf("recorded %d notifications to %s%n", notifications.get(), out);
    }

    private static ThreadStartParams.Builder asking(Path workspace) {
        return ThreadStartParams.builder()
                .cwd(workspace.toString())
                .approvalPolicy(AskForApproval.Simple.UNTRUSTED)
                .sandbox(SandboxMode.WORKSPACE_WRITE);
    }

    private static ThreadStartParams.Builder trusting(Path workspace) {
        return ThreadStartParams.builder()
                .cwd(workspace.toString())
                .approvalPolicy(AskForApproval.Simple.NEVER)
                .sandbox(SandboxMode.DANGER_FULL_ACCESS);
    }

    private static void round(CodexClient client, ScriptedModelServer model, Path workspace, int round) {
        String prose = ("Grüße aus der Werkstatt — the build of module " + round + " passed; 漢字 and emoji 🚀 "
                + "stream in small pieces, with \"quotes\", back\\slashes and\ttabs. ").repeat(6);
        // A streamed reply in small chunks: agent-message deltas, as a long answer produces them.
        model.enqueue(ModelStep.reply(prose).withChunkSize(4).withUsage(1200 + round, 300, 350, 40));
        CodexThread chat = client.startThread(asking(workspace).build());
        check(chat.startTurn("explain the build").await(TURN));

        // A command that writes: command approval, then a reply.
        model.enqueue(ModelStep.callTool("exec_command",
                        Map.of("cmd", "printf 'line %s\\n' 1 2 3 | tee out-" + round + ".txt", "login", false)),
                ModelStep.reply("Written out-" + round + ".txt.").withChunkSize(6));
        check(chat.startTurn("write the file").await(TURN));

        // A patch: file-change approval, diff updates, then a reply.
        model.enqueue(ModelStep.applyPatch(ModelStep.addFilePatch("notes-" + round + ".md",
                        "# Notes " + round + "\n\n- first\n- second: ünïcödé\n")),
                ModelStep.reply("Added the notes.").withChunkSize(5));
        check(chat.startTurn("add notes").await(TURN));

        // A dynamic tool call answered by the client.
        model.enqueue(ModelStep.callTool("lookup_key", Map.of("key", "K-" + round)),
                ModelStep.reply("The value is 42.").withChunkSize(4));
        check(chat.startTurn("look up the key").await(TURN));

        // Structured output.
        model.enqueue(ModelStep.json(new Verdict(round % 2 == 0, List.of("deletes data", "touches " + round))));
        chat.startTurn("is it safe?", Verdict.class).await(TURN);

        // Commands with streamed output (no approval, full access): output deltas.
        CodexThread build = client.startThread(trusting(workspace).build());
        model.enqueue(ModelStep.callTool("exec_command", Map.of("cmd",
                        "for i in $(seq 1 40); do echo \"[build] compiling unit $i of 40 … ok\"; sleep 0.03; done",
                        "login", false)),
                ModelStep.reply("Build output above; all 40 units compiled.").withChunkSize(4));
        check(build.startTurn("run the build").await(TURN));
    }

    private static void check(TurnResult result) {
        if (!result.isCompleted()) {
            throw new IllegalStateException("a recorded turn did not complete: " + result.status());
        }
    }
}
