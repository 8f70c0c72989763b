package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.awaitCondition;
import static dev.codexclient.it.ClientTestSupport.inMemory;
import static dev.codexclient.it.ClientTestSupport.inflightServerRequests;
import static dev.codexclient.it.ClientTestSupport.responseTo;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.ApprovalRequest;
import dev.codexclient.CodexClient;
import dev.codexclient.protocol.CommandExecutionApprovalDecision;
import dev.codexclient.protocol.CommandExecutionRequestApprovalResponse;
import dev.codexclient.protocol.FileChangeApprovalDecision;
import dev.codexclient.protocol.PermissionsRequestApprovalResponse;
import dev.codexclient.protocol.ProtocolJson;
import dev.codexclient.protocol.ReviewDecision;
import dev.codexclient.protocol.ServerRequestMethods;
import dev.codexclient.testkit.ClientReply;
import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.testkit.PendingServerRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Approvals: one vocabulary for every kind, asynchronous policies (and the synchronous adapter), withdrawal, and the
 * protocol's own decisions for the rare case.
 */
@ExtendWith(CodexTestExtension.class)
class ApprovalsTest {
    private static final Duration WAIT = Duration.ofSeconds(5);
    private static final String TURN = "turn-1";

    @Test
    void aPolicyForOneKindDecidesWithTheRequestTyped(FakeCodexAppServer fake) {
        List<ApprovalRequest.Command> seen = new CopyOnWriteArrayList<>();
        try (CodexClient client = inMemory(fake)
                .commandApprovals(ApprovalPolicy.sync(command -> {
                    seen.add(command);
                    return command.params().command().startsWith("rm") ? ApprovalDecision.DECLINE
                            : ApprovalDecision.ACCEPT;
                }))
                // Asynchronous, the form every handler has.
                .fileChangeApprovals(change -> CompletableFuture.supplyAsync(() -> ApprovalDecision.ACCEPT_FOR_SESSION))
                .build()) {
            String threadId = client.startThread().id();
            assertThat(fake.requestCommandApproval(threadId, TURN, "ls -la").awaitResponse(WAIT).decision())
                    .contains("accept");
            assertThat(fake.requestCommandApproval(threadId, TURN, "rm -rf /").awaitResponse(WAIT).decision())
                    .contains("decline");
            assertThat(fake.requestFileChangeApproval(threadId, TURN, "edit").awaitResponse(WAIT).decision())
                    .contains("acceptForSession");
            assertThat(seen).extracting(c -> c.params().command()).containsExactly("ls -la", "rm -rf /");
            assertThat(seen.get(0).params().threadId()).isEqualTo(threadId);
            assertThat(seen.get(0).params().turnId()).isEqualTo(TURN);
            assertThat(seen.get(0).method()).isEqualTo("item/commandExecution/requestApproval");
            // Kinds without a policy of their own still get the default.
            assertThat(fake.sendRequest("execCommandApproval", legacyExecParams(threadId)).awaitResponse(WAIT)
                    .decision()).contains("denied");
        }
    }

    @Test
    @SuppressWarnings("removal")
    void theFormerNamesOfTheHandlersStillRegisterThemForThisRelease(FakeCodexAppServer fake) {
        try (CodexClient client = inMemory(fake)
                .onCommandApproval(ApprovalPolicy.acceptAll())
                .onFileChangeApproval(ApprovalPolicy.acceptForSession())
                .onServerRequest(ServerRequestMethods.CURRENT_TIME_READ, p -> CompletableFuture.completedFuture(
                        dev.codexclient.protocol.CurrentTimeReadResponse.builder().currentTimeAt(42L).build()))
                .onUnknownServerRequest("x/new", p -> CompletableFuture.completedFuture(Map.of("ok", true)))
                .build()) {
            String threadId = client.startThread().id();
            assertThat(fake.requestCommandApproval(threadId, TURN, "make").awaitResponse(WAIT).decision())
                    .contains("accept");
            assertThat(fake.requestFileChangeApproval(threadId, TURN, "edit").awaitResponse(WAIT).decision())
                    .contains("acceptForSession");
            assertThat(fake.sendRequest("currentTime/read", Map.of("threadId", threadId)).awaitResponse(WAIT)
                    .result().path("currentTimeAt").asLong()).isEqualTo(42L);
            assertThat(fake.sendRequest("x/new", Map.of()).awaitResponse(WAIT).result().path("ok").asBoolean())
                    .isTrue();
        }
    }

    @Test
    void oneDecisionIsWrittenInTheVocabularyOfEachKind(FakeCodexAppServer fake) {
        List<String> kinds = new CopyOnWriteArrayList<>();
        try (CodexClient client = inMemory(fake).approvals(request -> {
            kinds.add(request.getClass().getSimpleName());
            return CompletableFuture.completedFuture(ApprovalDecision.CANCEL);
        }).build()) {
            String threadId = client.startThread().id();
            assertThat(fake.requestCommandApproval(threadId, TURN, "make").awaitResponse(WAIT).decision())
                    .contains("cancel");
            assertThat(fake.requestFileChangeApproval(threadId, TURN, "edit").awaitResponse(WAIT).decision())
                    .contains("cancel");
            assertThat(fake.sendRequest("execCommandApproval", legacyExecParams(threadId)).awaitResponse(WAIT)
                    .decision()).contains("abort");
            assertThat(fake.sendRequest("applyPatchApproval", legacyPatchParams(threadId)).awaitResponse(WAIT)
                    .decision()).contains("abort");
            JsonNode permissions = fake.sendRequest("item/permissions/requestApproval", permissionsParams(threadId))
                    .awaitResponse(WAIT).result();
            assertThat(permissions.path("permissions").size()).isZero();
            assertThat(kinds).containsExactly("Command", "FileChange", "LegacyCommand", "LegacyPatch",
                    "Permissions");
        }
    }

    @Test
    void anAsynchronousPolicyStillDecidingIsCancelledWhenTheServerWithdrawsTheRequest(FakeCodexAppServer fake) {
        AtomicReference<CompletableFuture<ApprovalDecision>> deciding = new AtomicReference<>();
        try (CodexClient client = inMemory(fake).approvals(request -> {
            CompletableFuture<ApprovalDecision> decision = new CompletableFuture<>();
            deciding.set(decision);
            return decision;
        }).build()) {
            String threadId = client.startThread().id();
            PendingServerRequest approval = fake.requestCommandApproval(threadId, TURN, "make deploy");
            awaitCondition("the policy is deciding", () -> deciding.get() != null);
            approval.resolve();
            awaitCondition("the policy's stage is cancelled", () -> deciding.get().isCancelled());
            assertThat(inflightServerRequests(client)).isZero();
            // A decision made now goes nowhere: the next request is answered, the withdrawn one never is.
            deciding.get().complete(ApprovalDecision.ACCEPT);
            assertThat(fake.sendRequest("currentTime/read", Map.of("threadId", threadId)).awaitResponse(WAIT)
                    .isError()).isFalse();
            assertThat(approval.response()).isEmpty();
            assertThat(responseTo(fake, approval.id().toString())).isNull();
        }
    }

    @Test
    void aSynchronousPolicyBlockedDecidingIsInterruptedWhenTheServerWithdrawsTheRequest(FakeCodexAppServer fake)
            throws Exception {
        CountDownLatch deciding = new CountDownLatch(1);
        CountDownLatch neverOpened = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        CountDownLatch done = new CountDownLatch(1);
        try (CodexClient client = inMemory(fake).commandApprovals(ApprovalPolicy.sync(command -> {
            deciding.countDown();
            try {
                neverOpened.await();   // a person who never answers
                return ApprovalDecision.ACCEPT;
            } catch (InterruptedException e) {
                interrupted.set(true);
                throw e;
            } finally {
                done.countDown();
            }
        })).build()) {
            String threadId = client.startThread().id();
            PendingServerRequest approval = fake.requestCommandApproval(threadId, TURN, "make deploy");
            assertThat(deciding.await(5, TimeUnit.SECONDS)).isTrue();
            approval.resolve();
            assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
            assertThat(interrupted).isTrue();
            awaitCondition("the request is no longer in flight", () -> inflightServerRequests(client) == 0);
            assertThat(fake.sendRequest("currentTime/read", Map.of("threadId", threadId)).awaitResponse(WAIT)
                    .isError()).isFalse();
            assertThat(responseTo(fake, approval.id().toString())).isNull();
        }
    }

    @Test
    void theExecPolicyAmendmentCodexOffersIsOneCallAway(FakeCodexAppServer fake) {
        try (CodexClient client = inMemory(fake).commandApprovals(command -> CompletableFuture.completedFuture(
                command.acceptWithProposedAmendment().orElse(ApprovalDecision.DECLINE))).build()) {
            String threadId = client.startThread().id();
            // The fake offers ["accept", {"acceptWithExecpolicyAmendment": {"execpolicy_amendment": ["npm"]}}, …].
            ClientReply reply = fake.requestCommandApproval(threadId, TURN, "npm test").awaitResponse(WAIT);
            assertThat(reply.decision()).contains("acceptWithExecpolicyAmendment");
            CommandExecutionRequestApprovalResponse typed = reply.result(CommandExecutionRequestApprovalResponse.class);
            assertThat(typed.decision()).isEqualTo(
                    new CommandExecutionApprovalDecision.AcceptWithExecpolicyAmendment(List.of("npm")));

            // Without an offer or a proposal there is no such decision.
            ObjectNode bare = json().put("threadId", threadId).put("turnId", TURN).put("itemId", "call-2")
                    .put("startedAtMs", 1L).put("command", "make");
            assertThat(fake.sendRequest("item/commandExecution/requestApproval", bare).awaitResponse(WAIT)
                    .decision()).contains("decline");
        }
    }

    @Test
    void protocolDecisionsAreSentAsTheyAreAndTheCommonOnesHaveOneSpelling(FakeCodexAppServer fake) {
        assertThat(ApprovalDecision.of(FileChangeApprovalDecision.ACCEPT)).isSameAs(ApprovalDecision.ACCEPT);
        assertThat(ApprovalDecision.of(CommandExecutionApprovalDecision.Simple.CANCEL))
                .isSameAs(ApprovalDecision.CANCEL);
        assertThat(ApprovalDecision.of(ReviewDecision.Simple.APPROVED_FOR_SESSION))
                .isSameAs(ApprovalDecision.ACCEPT_FOR_SESSION);
        PermissionsRequestApprovalResponse onlyRead = ProtocolJson.mapper().convertValue(
                Map.of("permissions", Map.of("fileSystem", Map.of("read", List.of("/srv/data"))), "scope", "turn"),
                PermissionsRequestApprovalResponse.class);
        try (CodexClient client = inMemory(fake).approvals(ApprovalPolicy.sync(request -> {
            if (request instanceof ApprovalRequest.LegacyCommand) {
                return ApprovalDecision.of(new ReviewDecision.Denied("not on a Friday"));
            }
            return request instanceof ApprovalRequest.Permissions ? ApprovalDecision.of(onlyRead)
                    : ApprovalDecision.DECLINE;
        })).build()) {
            String threadId = client.startThread().id();
            ClientReply legacy = fake.sendRequest("execCommandApproval", legacyExecParams(threadId))
                    .awaitResponse(WAIT);
            assertThat(legacy.result().path("decision").path("denied").path("rejection").asText())
                    .isEqualTo("not on a Friday");
            JsonNode grant = fake.sendRequest("item/permissions/requestApproval", permissionsParams(threadId))
                    .awaitResponse(WAIT).result();
            assertThat(grant.path("permissions").path("fileSystem").path("read").get(0).asText())
                    .isEqualTo("/srv/data");
            assertThat(grant.path("permissions").has("network")).isFalse();
        }
    }

    @Test
    void aProtocolDecisionForAnotherKindIsAnsweredWithAnErrorNotGuessed(FakeCodexAppServer fake) {
        ApprovalDecision amendment = ApprovalDecision.of(
                new CommandExecutionApprovalDecision.AcceptWithExecpolicyAmendment(List.of("make")));
        try (CodexClient client = inMemory(fake).approvals(ApprovalPolicy.always(amendment)).build()) {
            String threadId = client.startThread().id();
            assertThat(fake.requestCommandApproval(threadId, TURN, "make").awaitResponse(WAIT).decision())
                    .contains("acceptWithExecpolicyAmendment");
            ClientReply fileChange = fake.requestFileChangeApproval(threadId, TURN, "edit").awaitResponse(WAIT);
            assertThat(fileChange.isError()).isTrue();
            assertThat(fileChange.errorMessage()).hasValueSatisfying(m ->
                    assertThat(m).contains("item/fileChange/requestApproval").contains("another kind"));
        }
    }

    @Test
    void theLastRegistrationForAMethodWins(FakeCodexAppServer fake) {
        try (CodexClient client = inMemory(fake)
                .commandApprovals(ApprovalPolicy.acceptAll())
                .serverRequest(ServerRequestMethods.ITEM_COMMAND_EXECUTION_REQUEST_APPROVAL,
                        p -> CompletableFuture.completedFuture(CommandExecutionRequestApprovalResponse.builder()
                                .decision(CommandExecutionApprovalDecision.Simple.CANCEL).build()))
                .fileChangeApprovals(ApprovalPolicy.declineAll())
                .serverRequest(ServerRequestMethods.ITEM_FILE_CHANGE_REQUEST_APPROVAL, p -> {
                    throw new AssertionError("replaced by the policy registered after it");
                })
                .fileChangeApprovals(ApprovalPolicy.acceptForSession())
                .build()) {
            String threadId = client.startThread().id();
            assertThat(fake.requestCommandApproval(threadId, TURN, "make").awaitResponse(WAIT).decision())
                    .contains("cancel");
            assertThat(fake.requestFileChangeApproval(threadId, TURN, "edit").awaitResponse(WAIT).decision())
                    .contains("acceptForSession");
        }
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private static ObjectNode json() {
        return ProtocolJson.mapper().createObjectNode();
    }

    private static ObjectNode legacyExecParams(String threadId) {
        ObjectNode p = json().put("conversationId", threadId).put("callId", "exec-1").put("cwd", "/tmp")
                .putNull("reason").putNull("approvalId");
        p.putArray("command").add("rm").add("-rf").add("build");
        p.putArray("parsedCmd");
        return p;
    }

    private static ObjectNode legacyPatchParams(String threadId) {
        ObjectNode p = json().put("conversationId", threadId).put("callId", "patch-1").putNull("reason")
                .putNull("grantRoot");
        p.putObject("fileChanges").putObject("/tmp/notes.txt").put("type", "add").put("content", "hello\n");
        return p;
    }

    private static ObjectNode permissionsParams(String threadId) {
        ObjectNode p = json().put("threadId", threadId).put("turnId", TURN).put("itemId", "perm-1")
                .put("cwd", "/tmp").put("startedAtMs", System.currentTimeMillis()).put("reason", "needs network");
        p.putObject("permissions").putObject("network").put("enabled", true);
        return p;
    }
}
