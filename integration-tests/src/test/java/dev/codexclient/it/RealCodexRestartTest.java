package dev.codexclient.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.CodexClientBuilder;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.DynamicTool;
import dev.codexclient.RestartPolicy;
import dev.codexclient.Subscription;
import dev.codexclient.ToolResult;
import dev.codexclient.TurnResult;
import dev.codexclient.errors.CodexServerRestartedException;
import dev.codexclient.telemetry.ConnectionReplaced;
import dev.codexclient.telemetry.Disconnected;
import dev.codexclient.telemetry.RestartCompleted;
import dev.codexclient.telemetry.ThreadResumed;
import dev.codexclient.protocol.AskForApproval;
import dev.codexclient.protocol.CommandExecutionRequestApprovalResponse;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ServerRequestMethods;
import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.protocol.Turn;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.ModelStep;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The real app-server SIGKILLed at several points of its work, under a restart policy: the client spawns a new one,
 * resumes the threads, the turn that was running ends with {@link CodexServerRestartedException}, the thread's
 * history survives ({@code thread/read}) and its next turn completes on the new server.
 */
@Tag("real-codex")
@Timeout(120)
class RealCodexRestartTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    @RegisterExtension
    final RealCodexFixture codex = new RealCodexFixture();
    private final RestartPolicyTest.Recorder events = new RestartPolicyTest.Recorder();

    private CodexClient restarting(Consumer<CodexClientBuilder> configure) {
        return codex.client(b -> {
            b.restartPolicy(RestartPolicy.builder().maxAttempts(3)
                    .backoff(Duration.ofMillis(50), Duration.ofSeconds(1)).build()).telemetryListener(events);
            configure.accept(b);
        });
    }

    @Test
    void killedWhileIdle() throws Exception {
        Set<String> threadsBefore = ClientTestSupport.codexThreads();
        codex.model.when(r -> r.lastUserText().startsWith("first"), ModelStep.reply("first answer"),
                ModelStep.reply("first answer"));
        CodexClient client = restarting(b -> { });
        try {
            // One thread held by a listener (resumed at once), one whose handle alone survives (resumed when used).
            CodexThread held = client.startThread(codex.threadParams().build());
            CodexThread loose = client.startThread(codex.threadParams().build());
            String heldTurn = held.startTurn("first of held").await(WAIT).turnId().orElseThrow();
            String looseTurn = loose.startTurn("first of loose").await(WAIT).turnId().orElseThrow();
            List<ServerNotification> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
            Subscription listening = held.onEvent(seen::add);

            long killed = sigkill(client);
            assertThat(events.next(Disconnected.class).heldThreads()).isEqualTo(1);
            events.next(ConnectionReplaced.class);
            assertThat(events.next(ThreadResumed.class).threadId()).isEqualTo(held.id());
            // The new server's process once the restored connection is the client's (just after the resumes).
            ClientTestSupport.awaitCondition("the restored connection is current", WAIT,
                    () -> client.serverProcess().orElseThrow().pid() != killed);

            assertHistoryKept(held, heldTurn);
            assertHistoryKept(loose, looseTurn);
            assertNextTurnCompletes(held);
            assertNextTurnCompletes(loose);
            assertThat(seen).anyMatch(n -> n instanceof ServerNotification.TurnCompleted);
            listening.close();
        } finally {
            client.close();
        }
        RealCodexKillTest.assertNoLeaks(threadsBefore);
    }

    /**
     * Eight threads held, the server SIGKILLed, and, while the restored connection resumes them, a turn started on
     * a thread that was idle at the kill: codex knows a thread only once it was resumed on the new server, so the
     * turn completes only if that thread is resumed there too.
     */
    @Test
    void aTurnOnAThreadIdleAtTheKillStartedWhileTheRestoreResumesCompletes() throws Exception {
        codex.model.whenAlways(r -> r.lastUserText().startsWith("warm up"), ModelStep.reply("warm"));
        codex.model.whenAlways(r -> r.lastUserText().equals("during the restore"), ModelStep.reply("resumed"));
        CodexClient client = restarting(b -> { });
        try {
            List<Subscription> holds = new java.util.ArrayList<>();
            for (int i = 0; i < 8; i++) {
                CodexThread thread = client.startThread(codex.threadParams().build());
                thread.startTurn("warm up " + i).await(WAIT);
                holds.add(thread.onEvent(n -> { }));
            }
            CodexThread idle = client.startThread(codex.threadParams().build());
            idle.startTurn("warm up the idle one").await(WAIT);

            long killed = client.serverProcess().orElseThrow().pid();
            // The tree reaches the native binary, which the client runs itself, or the npm launcher runs or became.
            List<ProcessHandle> tree = client.serverProcessTree();
            assertThat(tree.get(0).pid()).isEqualTo(killed);
            assertThat(tree).anySatisfy(p -> assertThat(p.info().command()).hasValueSatisfying(
                    c -> assertThat(java.nio.file.Path.of(c).getFileName().toString()).isEqualTo("codex")));
            CompletableFuture<Boolean> startedDuringRestore = new CompletableFuture<>();
            // On the listener's thread, once the first held thread is back, while the others are being resumed.
            CompletableFuture<CodexTurn> turn = events.future(ThreadResumed.class).thenCompose(r -> {
                startedDuringRestore.complete(client.serverProcess().orElseThrow().pid() == killed);
                return idle.startTurnAsync("during the restore");
            });
            sigkill(client);
            assertThat(events.next(Disconnected.class).heldThreads()).isEqualTo(8);

            TurnResult result = turn.get(WAIT.toSeconds(), TimeUnit.SECONDS).await(WAIT);
            assertThat(startedDuringRestore.get()).as("the turn started while the restore was resuming").isTrue();
            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(result.finalText()).isEqualTo("resumed");
            RestartCompleted recovered = events.future(RestartCompleted.class).get(WAIT.toSeconds(),
                    TimeUnit.SECONDS);
            assertThat(recovered.threadsResumed()).isGreaterThanOrEqualTo(8);
            assertThat(recovered.threadsNotResumed()).isZero();
            holds.forEach(Subscription::close);
        } finally {
            client.close();
        }
    }

    @Test
    void killedMidStream() throws Exception {
        codex.model.when(r -> r.lastUserText().equals("first"), ModelStep.reply("first answer"));
        codex.model.when(r -> r.lastUserText().equals("stream then wait"),
                ModelStep.exec("echo streamed-output"), ModelStep.stall(Duration.ofSeconds(60)));
        try (CodexClient client = restarting(b -> { })) {
            CodexThread thread = client.startThread(codex.threadParams()
                    .approvalPolicy(AskForApproval.Simple.NEVER).build());
            String first = thread.startTurn("first").await(WAIT).turnId().orElseThrow();
            CodexTurn running = thread.startTurn("stream then wait");
            CompletableFuture<Void> streamed = new CompletableFuture<>();
            running.onEvent(n -> {
                if (n instanceof ServerNotification.ItemCompleted c
                        && c.params().item() instanceof ThreadItem.CommandExecution) {
                    streamed.complete(null);
                }
            });
            streamed.get(WAIT.toSeconds(), TimeUnit.SECONDS);

            sigkill(client);
            assertRestartOutcome(running, thread);
            events.next(Disconnected.class);
            events.next(ConnectionReplaced.class);
            assertThat(events.next(ThreadResumed.class).threadId()).isEqualTo(thread.id());
            assertHistoryKept(thread, first);
            assertNextTurnCompletes(thread);
        }
    }

    @Test
    void killedDuringAnApproval() throws Exception {
        codex.model.when(r -> r.lastUserText().equals("first"), ModelStep.reply("first answer"));
        codex.model.when(r -> r.lastUserText().equals("write a file"),
                ModelStep.exec("printf x | tee x.txt"), ModelStep.reply("wrote it"));
        CountDownLatch asked = new CountDownLatch(1);
        CompletableFuture<CommandExecutionRequestApprovalResponse> undecided = new CompletableFuture<>();
        try (CodexClient client = restarting(b -> b.serverRequest(
                ServerRequestMethods.ITEM_COMMAND_EXECUTION_REQUEST_APPROVAL, p -> {
                    asked.countDown();
                    return undecided;
                }))) {
            CodexThread thread = client.startThread(codex.threadParams().build());
            String first = thread.startTurn("first").await(WAIT).turnId().orElseThrow();
            CodexTurn running = thread.startTurn("write a file");
            assertThat(asked.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

            sigkill(client);
            assertRestartOutcome(running, thread);
            events.next(Disconnected.class);
            events.next(ConnectionReplaced.class);
            events.next(ThreadResumed.class);
            // The approval the dead server asked for is withdrawn from its handler, never answered.
            assertThat(undecided).isCancelled();
            assertHistoryKept(thread, first);
            assertNextTurnCompletes(thread);
        }
    }

    @Test
    void killedDuringAToolCall() throws Exception {
        codex.model.when(r -> r.lastUserText().equals("first"), ModelStep.reply("first answer"));
        codex.model.when(r -> r.lastUserText().equals("look it up"),
                ModelStep.callTool("lookup", Map.of("key", "k")), ModelStep.reply("looked up"));
        CountDownLatch called = new CountDownLatch(1);
        CompletableFuture<ToolResult> unanswered = new CompletableFuture<>();
        ObjectNode schema = new ObjectMapper().createObjectNode().put("type", "object");
        schema.putObject("properties").putObject("key").put("type", "string");
        DynamicTool lookup = DynamicTool.ofAsync("lookup", "Looks a key up", schema, (args, call, mapper) -> {
            called.countDown();
            return unanswered;
        });
        try (CodexClient client = restarting(b -> b.experimentalApi(true).tool(lookup))) {
            CodexThread thread = client.startThread(codex.threadParams().build());
            String first = thread.startTurn("first").await(WAIT).turnId().orElseThrow();
            CodexTurn running = thread.startTurn("look it up");
            assertThat(called.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

            sigkill(client);
            assertRestartOutcome(running, thread);
            events.next(Disconnected.class);
            events.next(ConnectionReplaced.class);
            events.next(ThreadResumed.class);
            assertThat(unanswered).isCancelled();
            assertHistoryKept(thread, first);
            assertNextTurnCompletes(thread);
        }
    }

    /**
     * SIGKILLs the server process tree (the native binary, the npm launcher when it runs), children first; returns the pid of
     * the process the client spawned.
     */
    private static long sigkill(CodexClient client) {
        List<ProcessHandle> tree = new java.util.ArrayList<>(client.serverProcessTree());
        assertThat(tree).as("the server's process tree").isNotEmpty();
        java.util.Collections.reverse(tree);
        tree.forEach(ProcessHandle::destroyForcibly);
        return tree.get(tree.size() - 1).pid();
    }

    private static void assertRestartOutcome(CodexTurn running, CodexThread thread) throws Exception {
        try {
            running.result().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            throw new AssertionError("the turn completed although its server was killed");
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOfSatisfying(CodexServerRestartedException.class, r -> {
                assertThat(r.threadId()).isEqualTo(thread.id());
                assertThat(r.turnId()).contains(running.id());
                // A restart the policy handles reads as such: the killed server's stderr stays on the cause.
                assertThat(r.getMessage()).doesNotContain("stderr");
                assertThat(r.stderrTail()).isEqualTo(((dev.codexclient.errors.CodexTransportException) r.getCause())
                        .stderrTail());
            });
        }
    }

    private static void assertHistoryKept(CodexThread thread, String completedTurn) {
        List<Turn> turns = thread.read().turns();
        assertThat(turns).as("the turns of thread %s after the restart", thread.id())
                .anySatisfy(t -> {
                    assertThat(t.id()).isEqualTo(completedTurn);
                    assertThat(t.status()).isEqualTo(TurnStatus.COMPLETED);
                });
    }

    private void assertNextTurnCompletes(CodexThread thread) {
        String text = "after the restart on " + thread.id();
        codex.model.when(r -> r.lastUserText().equals(text), ModelStep.reply("still here"));
        TurnResult r = thread.startTurn(text).await(WAIT);
        assertThat(r.status()).isEqualTo(TurnStatus.COMPLETED);
        assertThat(r.finalText()).isEqualTo("still here");
    }
}
