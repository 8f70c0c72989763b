package dev.codexclient.internal.requests;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.ApprovalRequest;
import dev.codexclient.ServerRequestWithdrawnException;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.internal.rpc.IncomingRequest;
import dev.codexclient.internal.rpc.ServerRequestReply;
import dev.codexclient.internal.telemetry.TelemetryEmitter;
import dev.codexclient.internal.time.ManualScheduler;
import dev.codexclient.protocol.CommandExecutionApprovalDecision;
import dev.codexclient.protocol.CommandExecutionRequestApprovalResponse;
import dev.codexclient.protocol.ProtocolJson;
import dev.codexclient.protocol.RequestId;
import dev.codexclient.protocol.ServerRequestMethods;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.telemetry.ServerRequestHandled;
import dev.codexclient.telemetry.ServerRequestOutcome;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The router decides and reports in one place: the reply it returns is typed, and the telemetry record it makes
 * carries who answered and the approval decision as it was made (the policy's), never read back from the reply.
 * Everything runs on the calling thread here (an inline executor and emitter), on a manual clock.
 */
class ServerRequestRouterTest {
    private static final ObjectMapper JSON = ProtocolJson.mapper();
    private static final String APPROVAL = "item/commandExecution/requestApproval";

    private final List<ServerRequestHandled> reported = new CopyOnWriteArrayList<>();
    private final ManualScheduler clock = new ManualScheduler();
    private final ThreadApprovals threadApprovals = new ThreadApprovals();
    private final ServerRequestTelemetry telemetry = new ServerRequestTelemetry(new TelemetryEmitter(
            new CodexTelemetryListener() {
                @Override
                public void serverRequestHandled(ServerRequestHandled report) {
                    reported.add(report);
                }
            }, Runnable::run), clock);

    private static IncomingRequest approval(String command) {
        return approval("t", command);
    }

    private static IncomingRequest approval(String threadId, String command) {
        ObjectNode message = JSON.createObjectNode().put("id", 1).put("method", APPROVAL);
        message.putObject("params").put("threadId", threadId).put("turnId", "u").put("itemId", "i")
                .put("startedAtMs", 1L).put("command", command);
        return new IncomingRequest(RequestId.of(1), APPROVAL, message);
    }

    private ServerRequestRouter router(ApprovalPolicy<ApprovalRequest> approvals,
                                       Map<String, ServerRequestRouter.Route<?, ?>> routes) {
        return new ServerRequestRouter(JSON, new ObjectMapper(), new RequestHandlers(approvals, Map.of(), routes,
                Map.of(), List.of()), new ToolTable(List.of()), threadApprovals, Runnable::run, telemetry);
    }

    private static ServerRequestReply reply(ServerRequestRouter router, IncomingRequest request) throws Exception {
        return router.route(request).get(5, TimeUnit.SECONDS);
    }

    @Test
    void aPolicysDecisionIsTheReplyAndTheApprovalTheTelemetryReports() throws Exception {
        ServerRequestRouter router = router(ApprovalPolicy.sync(r -> r instanceof ApprovalRequest.Command c
                && c.params().command().equals("git status") ? ApprovalDecision.ACCEPT : ApprovalDecision.DECLINE),
                Map.of());

        ServerRequestReply accepted = reply(router, approval("git status"));
        assertThat(accepted).isInstanceOfSatisfying(ServerRequestReply.Result.class, r ->
                assertThat(r.result().get("decision").asText()).isEqualTo("accept"));
        assertThat(reported).singleElement().satisfies(h -> {
            assertThat(h.method()).isEqualTo(APPROVAL);
            assertThat(h.requestId()).isEqualTo("1");
            assertThat(h.outcome()).isEqualTo(ServerRequestOutcome.ANSWERED);
            assertThat(h.decision()).contains(ApprovalDecision.ACCEPT);
        });

        // Whole command lines: a prefix of an allowed one is not allowed.
        reply(router, approval("git status; rm -rf ~"));
        assertThat(reported.get(1).decision()).contains(ApprovalDecision.DECLINE);
    }

    @Test
    void aThreadsOwnPolicyDecidesItsApprovalsBeforeTheClientsHandlerAndPolicy() throws Exception {
        ServerRequestRouter router = new ServerRequestRouter(JSON, new ObjectMapper(), new RequestHandlers(
                ApprovalPolicy.declineAll(), Map.of(), Map.of(APPROVAL, ServerRequestRouter.Route.of(
                        ServerRequestMethods.ITEM_COMMAND_EXECUTION_REQUEST_APPROVAL,
                        p -> CompletableFuture.completedFuture(CommandExecutionRequestApprovalResponse.builder()
                                .decision(CommandExecutionApprovalDecision.Simple.CANCEL).build()))),
                Map.of(), List.of()), new ToolTable(List.of()), threadApprovals, Runnable::run, telemetry);
        threadApprovals.declare("own", ApprovalPolicy.sync(r -> r.threadId().orElseThrow().equals("own")
                ? ApprovalDecision.ACCEPT_FOR_SESSION : ApprovalDecision.DECLINE));

        ServerRequestReply own = reply(router, approval("own", "make"));
        assertThat(own).isInstanceOfSatisfying(ServerRequestReply.Result.class, r ->
                assertThat(r.result().get("decision").asText()).isEqualTo("acceptForSession"));
        assertThat(reported.get(0).outcome()).isEqualTo(ServerRequestOutcome.ANSWERED);
        assertThat(reported.get(0).decision()).contains(ApprovalDecision.ACCEPT_FOR_SESSION);

        // Another thread's approval goes where the client sends approvals: its typed handler.
        ServerRequestReply other = reply(router, approval("other", "make"));
        assertThat(other).isInstanceOfSatisfying(ServerRequestReply.Result.class, r ->
                assertThat(r.result().get("decision").asText()).isEqualTo("cancel"));

        // A thread the server closed has no policy of its own any more.
        threadApprovals.forget("own");
        assertThat(reply(router, approval("own", "make"))).isInstanceOfSatisfying(ServerRequestReply.Result.class,
                r -> assertThat(r.result().get("decision").asText()).isEqualTo("cancel"));
    }

    @Test
    void withoutAPolicyTheDefaultDeclinesAndSaysSo() throws Exception {
        reply(router(null, Map.of()), approval("make"));
        assertThat(reported).singleElement().satisfies(h -> {
            assertThat(h.outcome()).isEqualTo(ServerRequestOutcome.DEFAULTED);
            assertThat(h.decision()).contains(ApprovalDecision.DECLINE);
        });
    }

    @Test
    void aTypedHandlersAnswerCarriesItsApprovalAndItsFailureIsAFailedReply() throws Exception {
        ServerRequestRouter answering = router(null, Map.of(APPROVAL, ServerRequestRouter.Route.of(
                ServerRequestMethods.ITEM_COMMAND_EXECUTION_REQUEST_APPROVAL, p -> CompletableFuture.completedFuture(
                        CommandExecutionRequestApprovalResponse.builder()
                                .decision(CommandExecutionApprovalDecision.Simple.ACCEPT_FOR_SESSION).build()))));
        assertThat(reply(answering, approval("make"))).isInstanceOf(ServerRequestReply.Result.class);
        assertThat(reported.get(0).outcome()).isEqualTo(ServerRequestOutcome.ANSWERED);
        assertThat(reported.get(0).decision()).contains(ApprovalDecision.ACCEPT_FOR_SESSION);

        ServerRequestRouter failing = router(null, Map.of(APPROVAL, ServerRequestRouter.Route.of(
                ServerRequestMethods.ITEM_COMMAND_EXECUTION_REQUEST_APPROVAL,
                p -> CompletableFuture.<CommandExecutionRequestApprovalResponse>failedFuture(
                        new IllegalStateException("no reviewer")))));
        assertThat(reply(failing, approval("make"))).isInstanceOfSatisfying(ServerRequestReply.Failure.class,
                f -> assertThat(f.cause()).hasMessage("no reviewer"));
        assertThat(reported.get(1).outcome()).isEqualTo(ServerRequestOutcome.FAILED);
        assertThat(reported.get(1).decision()).isEmpty();
    }

    @Test
    void aMethodNobodyHandlesIsAnsweredByDefaultWithMethodNotFound() throws Exception {
        ObjectNode message = JSON.createObjectNode().put("id", 2).put("method", "future/thing");
        ServerRequestReply reply = reply(router(null, Map.of()),
                new IncomingRequest(RequestId.of(2), "future/thing", message));
        assertThat(reply).isInstanceOfSatisfying(ServerRequestReply.Failure.class, f ->
                assertThat(f.cause()).isInstanceOfSatisfying(CodexRpcException.class,
                        e -> assertThat(e.code()).isEqualTo(CodexRpcException.METHOD_NOT_FOUND)));
        assertThat(reported).singleElement().satisfies(h -> {
            assertThat(h.outcome()).isEqualTo(ServerRequestOutcome.DEFAULTED);
            assertThat(h.decision()).isEmpty();
        });
    }

    @Test
    void aWithdrawnRequestCancelsThePolicysStageAndIsReportedAbandonedOnceWithItsDuration() {
        CompletableFuture<ApprovalDecision> deciding = new CompletableFuture<>();
        ServerRequestRouter router = router(request -> deciding, Map.of());

        CompletableFuture<ServerRequestReply> reply = router.route(approval("make"));
        clock.advance(Duration.ofMillis(250));
        reply.cancel(true);

        assertThat(deciding).isCancelled();
        assertThat(reported).singleElement().satisfies(h -> {
            assertThat(h.outcome()).isEqualTo(ServerRequestOutcome.ABANDONED);
            assertThat(h.handling()).isEqualTo(Duration.ofMillis(250));
        });
        // A decision that comes too late changes nothing, and is not reported again.
        deciding.complete(ApprovalDecision.ACCEPT);
        assertThat(reported).hasSize(1);
    }

    @Test
    void theReasonOfAWithdrawalReachesThePolicysOwnStage() {
        CompletableFuture<ApprovalDecision> deciding = new CompletableFuture<>();
        ServerRequestRouter router = router(request -> deciding, Map.of());
        CompletableFuture<Throwable> seen = new CompletableFuture<>();
        deciding.whenComplete((d, e) -> seen.complete(e));

        CompletableFuture<ServerRequestReply> reply = router.route(approval("make"));
        reply.completeExceptionally(new ServerRequestWithdrawnException(ServerRequestWithdrawnException.Reason.GONE));

        assertThat(deciding).isCancelled();
        assertThat(seen.join()).isInstanceOfSatisfying(ServerRequestWithdrawnException.class,
                w -> assertThat(w.reason()).isEqualTo(ServerRequestWithdrawnException.Reason.GONE));
    }
}
