package dev.codexclient.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.protocol.CommandExecutionRequestApprovalResponse;
import dev.codexclient.protocol.ServerRequestMethods;
import dev.codexclient.protocol.ThreadListParams;
import dev.codexclient.testkit.ModelStep;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The app-server dies with SIGKILL in the middle of work: everything pending fails, typed and promptly. */
@Tag("real-codex")
@Timeout(60)
class RealCodexKillTest {
    @RegisterExtension
    final RealCodexFixture codex = new RealCodexFixture();


    @Test
    void sigkillMidTurnFailsEveryPendingCallAndLeaksNothing() throws Exception {
        Set<String> threadsBefore = ClientTestSupport.codexThreads();
        codex.model.when(r -> r.lastUserText().equals("wait for the model"), ModelStep.stall(Duration.ofSeconds(60)));
        codex.model.when(r -> r.lastUserText().equals("write a file"),
                ModelStep.callTool("exec_command", Map.of("cmd", "printf x | tee x.txt", "login", false)));
        CountDownLatch approvalAsked = new CountDownLatch(1);
        CompletableFuture<CommandExecutionRequestApprovalResponse> neverDecided = new CompletableFuture<>();
        CodexClient client = codex.client(b -> b.serverRequest(
                ServerRequestMethods.ITEM_COMMAND_EXECUTION_REQUEST_APPROVAL, p -> {
                    approvalAsked.countDown();
                    return neverDecided;
                }));
        try {
            // Two turns in flight: one waiting on the model, one waiting on this client's approval.
            CodexThread first = client.startThread(codex.threadParams().build());
            CodexTurn waitingOnModel = first.startTurn("wait for the model");
            CodexThread second = client.startThread(codex.threadParams().build());
            CodexTurn waitingOnApproval = second.startTurn("write a file");
            assertThat(approvalAsked.await(15, TimeUnit.SECONDS)).isTrue();

            ProcessHandle launcher = client.serverProcess().orElseThrow();
            assertThat(ProcessHandle.current().children().map(ProcessHandle::pid)).contains(launcher.pid());
            ProcessHandle appServer = nativeAppServer(launcher);
            assertThat(appServer.destroyForcibly()).isTrue();   // SIGKILL on Unix

            CodexTransportException onModel = transportFailure(waitingOnModel.result());
            CodexTransportException onApproval = transportFailure(waitingOnApproval.result());
            // A death by SIGKILL, reported as the launcher would mirror it: 128 + 9.
            assertThat(onModel.exitCode()).hasValue(137);
            assertThat(onApproval.exitCode()).hasValue(137);

            // Calls made after the death fail at once, typed; nothing waits for a request timeout.
            assertThatThrownBy(() -> client.rpc().threadList(ThreadListParams.builder().build())
                    .get(5, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(CodexTransportException.class);
            assertThatThrownBy(() -> first.startTurn("anyone there?"))
                    .isInstanceOf(CodexTransportException.class);
            assertThat(client.isClosed()).isTrue();
            // The approval the server can no longer receive is withdrawn from its handler.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!neverDecided.isDone() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(neverDecided).isCancelled();
        } finally {
            client.close();
        }
        assertNoLeaks(threadsBefore);
    }

    /** The native codex binary: the launcher itself, or its descendant when the launcher is a Node script. */
    private static ProcessHandle nativeAppServer(ProcessHandle launcher) {
        return launcher.descendants()
                .filter(p -> p.info().command().map(c -> !c.endsWith("/node")).orElse(false))
                .filter(p -> p.info().command().map(c -> c.contains("codex")).orElse(false))
                .findFirst().orElse(launcher);
    }

    private static CodexTransportException transportFailure(CompletableFuture<?> future) throws Exception {
        try {
            future.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(CodexTransportException.class);
            return (CodexTransportException) e.getCause();
        }
        throw new AssertionError("the turn completed normally although its server was killed");
    }

    /** No client thread and no child process outlives the client (waiting briefly for them to wind down). */
    static void assertNoLeaks(Set<String> threadsBefore) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        Set<String> leaked;
        List<ProcessHandle> children;
        do {
            Thread.sleep(100);
            leaked = new java.util.HashSet<>(ClientTestSupport.codexThreads());
            leaked.removeAll(threadsBefore);
            children = ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).toList();
        } while ((!leaked.isEmpty() || !children.isEmpty()) && System.nanoTime() < deadline);
        assertThat(leaked).as("client threads still alive after close").isEmpty();
        assertThat(children).as("child processes still alive after close")
                .extracting(p -> p.pid() + " " + p.info().commandLine().orElse("?")).isEmpty();
    }
}
