package dev.codexclient.internal.requests;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.ApprovalRequest;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.telemetry.ServerRequestOutcome;
import dev.codexclient.internal.rpc.IncomingRequest;
import dev.codexclient.protocol.CommandExecutionApprovalDecision;
import dev.codexclient.protocol.CommandExecutionRequestApprovalResponse;
import dev.codexclient.protocol.ProtocolJson;
import dev.codexclient.protocol.RequestId;
import dev.codexclient.protocol.ServerRequestMethods;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The router returns what it decided, as a value: the reply, who gave it, and the approval decision. */
class ServerRequestRouterTest {
    private static final ObjectMapper JSON = ProtocolJson.mapper();
    private static final String APPROVAL = "item/commandExecution/requestApproval";

    private static IncomingRequest approval(String command) {
        ObjectNode message = JSON.createObjectNode().put("id", 1).put("method", APPROVAL);
        message.putObject("params").put("threadId", "t").put("turnId", "u").put("itemId", "i")
                .put("startedAtMs", 1L).put("command", command);
        return new IncomingRequest(RequestId.of(1), APPROVAL, message);
    }

    private static ServerRequestRouter router(ApprovalPolicy<ApprovalRequest> approvals,
                                              Map<String, ServerRequestRouter.Route<?, ?>> routes) {
        return new ServerRequestRouter(JSON, new ObjectMapper(), new RequestHandlers(approvals, Map.of(), routes,
                Map.of(), List.of()), new ToolTable(List.of()), Runnable::run);
    }

    private static ServerRequestDecision decided(ServerRequestRouter router, IncomingRequest request)
            throws Exception {
        return router.route(request).get(5, TimeUnit.SECONDS);
    }

    @Test
    void aPolicysDecisionIsTheReplyAndTheApprovalTheTelemetryReads() throws Exception {
        ServerRequestRouter router = router(ApprovalPolicy.sync(r -> r instanceof ApprovalRequest.Command c
                && c.params().command().equals("git status") ? ApprovalDecision.ACCEPT : ApprovalDecision.DECLINE),
                Map.of());

        ServerRequestDecision accepted = decided(router, approval("git status"));
        assertThat(accepted.outcome()).isEqualTo(ServerRequestOutcome.ANSWERED);
        assertThat(accepted.approval()).contains(ApprovalDecision.ACCEPT);
        assertThat(accepted.error()).isNull();
        assertThat(((CommandExecutionRequestApprovalResponse) accepted.result()).decision())
                .isEqualTo(CommandExecutionApprovalDecision.Simple.ACCEPT);

        // Whole command lines: a prefix of an allowed one is not allowed.
        ServerRequestDecision declined = decided(router, approval("git status; rm -rf ~"));
        assertThat(declined.approval()).contains(ApprovalDecision.DECLINE);
    }

    @Test
    void withoutAPolicyTheDefaultDeclinesAndSaysSo() throws Exception {
        ServerRequestDecision d = decided(router(null, Map.of()), approval("make"));
        assertThat(d.outcome()).isEqualTo(ServerRequestOutcome.DEFAULTED);
        assertThat(d.approval()).contains(ApprovalDecision.DECLINE);
    }

    @Test
    void aTypedHandlersAnswerCarriesItsApprovalAndItsFailureIsAFailedDecision() throws Exception {
        ServerRequestRouter answering = router(null, Map.of(APPROVAL, new ServerRequestRouter.Route<>(
                ServerRequestMethods.ITEM_COMMAND_EXECUTION_REQUEST_APPROVAL, p -> CompletableFuture.completedFuture(
                        CommandExecutionRequestApprovalResponse.builder()
                                .decision(CommandExecutionApprovalDecision.Simple.ACCEPT_FOR_SESSION).build()))));
        ServerRequestDecision d = decided(answering, approval("make"));
        assertThat(d.outcome()).isEqualTo(ServerRequestOutcome.ANSWERED);
        assertThat(d.approval()).contains(ApprovalDecision.ACCEPT_FOR_SESSION);

        ServerRequestRouter failing = router(null, Map.of(APPROVAL, new ServerRequestRouter.Route<>(
                ServerRequestMethods.ITEM_COMMAND_EXECUTION_REQUEST_APPROVAL,
                p -> CompletableFuture.<CommandExecutionRequestApprovalResponse>failedFuture(
                        new IllegalStateException("no reviewer")))));
        ServerRequestDecision f = decided(failing, approval("make"));
        assertThat(f.outcome()).isEqualTo(ServerRequestOutcome.FAILED);
        assertThat(f.error()).hasMessage("no reviewer");
        assertThat(f.approval()).isEmpty();
    }

    @Test
    void aMethodNobodyHandlesIsAnsweredByDefaultWithMethodNotFound() throws Exception {
        ObjectNode message = JSON.createObjectNode().put("id", 2).put("method", "future/thing");
        ServerRequestDecision d = decided(router(null, Map.of()),
                new IncomingRequest(RequestId.of(2), "future/thing", message));
        assertThat(d.outcome()).isEqualTo(ServerRequestOutcome.DEFAULTED);
        assertThat(d.error()).isInstanceOfSatisfying(CodexRpcException.class,
                e -> assertThat(e.code()).isEqualTo(CodexRpcException.METHOD_NOT_FOUND));
        assertThat(d.approval()).isEqualTo(Optional.empty());
    }
}
