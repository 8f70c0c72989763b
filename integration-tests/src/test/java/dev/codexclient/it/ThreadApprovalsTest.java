package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.inMemory;
import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.ApprovalRequest;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.ThreadOptions;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadResumeParams;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.telemetry.ServerRequestHandled;
import dev.codexclient.telemetry.ServerRequestOutcome;
import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A thread's own approval policy ({@link ThreadOptions#approvals()}): it decides the approvals of its thread in place of
 * the client's policies, the other threads keep the client's, and it lasts until the server closes the thread; a
 * resume with a policy gives the thread that one.
 */
@ExtendWith(CodexTestExtension.class)
class ThreadApprovalsTest {
    private static final Duration WAIT = Duration.ofSeconds(5);
    private static final String TURN = "turn-1";

    @Test
    void aThreadsOwnPolicyDecidesItsApprovalsAndTheOthersKeepTheClients(FakeCodexAppServer fake) {
        List<String> asked = new CopyOnWriteArrayList<>();
        List<ServerRequestHandled> reported = new CopyOnWriteArrayList<>();
        try (CodexClient client = inMemory(fake)
                .approvals(ApprovalPolicy.sync(r -> {
                    asked.add("client " + r.threadId().orElse("?"));
                    return ApprovalDecision.DECLINE;
                }))
                .fileChangeApprovals(ApprovalPolicy.always(ApprovalDecision.CANCEL))
                .telemetryListener(new CodexTelemetryListener() {
                    @Override
                    public void serverRequestHandled(ServerRequestHandled report) {
                        reported.add(report);
                    }
                })
                .build()) {
            CodexThread own = client.startThread(ThreadStartParams.builder().build(), ThreadOptions.builder()
                    .approvals(ApprovalPolicy.sync(r -> {
                        asked.add("own " + r.threadId().orElse("?") + " " + r.method());
                        return ApprovalDecision.ACCEPT_FOR_SESSION;
                    }))
                    .build());
            CodexThread other = client.startThread();

            assertThat(fake.requestCommandApproval(own.id(), TURN, "make").awaitResponse(WAIT).decision())
                    .contains("acceptForSession");
            // The kind's policy of the client gives way too.
            assertThat(fake.requestFileChangeApproval(own.id(), TURN, "edit").awaitResponse(WAIT).decision())
                    .contains("acceptForSession");
            assertThat(fake.requestCommandApproval(other.id(), TURN, "make").awaitResponse(WAIT).decision())
                    .contains("decline");
            assertThat(fake.requestFileChangeApproval(other.id(), TURN, "edit").awaitResponse(WAIT).decision())
                    .contains("cancel");
            assertThat(asked).containsExactly("own " + own.id() + " item/commandExecution/requestApproval",
                    "own " + own.id() + " item/fileChange/requestApproval", "client " + other.id());
            ClientTestSupport.awaitCondition("every decision is reported", () -> reported.size() == 4);
            assertThat(reported.get(0).outcome()).isEqualTo(ServerRequestOutcome.ANSWERED);
            assertThat(reported.get(0).decision()).contains(ApprovalDecision.ACCEPT_FOR_SESSION);
        }
    }

    @Test
    void thePolicyLastsUntilTheServerClosesTheThreadAndAResumeGivesItAgain(FakeCodexAppServer fake)
            throws Exception {
        try (CodexClient client = inMemory(fake).approvals(ApprovalPolicy.declineAll()).build()) {
            ThreadOptions accepting = ThreadOptions.builder().approvals(ApprovalPolicy.acceptAll()).build();
            CodexThread thread = client.startThread(ThreadStartParams.builder().build(), accepting);
            assertThat(fake.requestCommandApproval(thread.id(), TURN, "make").awaitResponse(WAIT).decision())
                    .contains("accept");

            CompletableFuture<Void> closed = new CompletableFuture<>();
            client.onNotification(n -> {
                if (n instanceof ServerNotification.ThreadClosed) {
                    closed.complete(null); // after the client let go of the thread's options
                }
            });
            fake.notify("thread/closed", Map.of("threadId", thread.id()));
            closed.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(fake.requestCommandApproval(thread.id(), TURN, "make").awaitResponse(WAIT).decision())
                    .as("a closed thread's approvals go to the client's policy").contains("decline");

            client.resumeThread(ThreadResumeParams.builder().threadId(thread.id()).build(), accepting);
            assertThat(fake.requestCommandApproval(thread.id(), TURN, "make").awaitResponse(WAIT).decision())
                    .contains("accept");
        }
    }
}
