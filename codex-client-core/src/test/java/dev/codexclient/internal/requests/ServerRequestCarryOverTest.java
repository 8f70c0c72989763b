package dev.codexclient.internal.requests;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.ServerRequestWithdrawnException;
import dev.codexclient.ServerRequestWithdrawnException.Reason;
import dev.codexclient.internal.Futures;
import dev.codexclient.internal.rpc.IncomingRequest;
import dev.codexclient.internal.rpc.ServerRequestReply;
import dev.codexclient.protocol.RequestId;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The handling carried over a lost connection: parked at the loss, answered by the replay, and when it cannot come
 * back cancelled with the reason the handler reads.
 */
class ServerRequestCarryOverTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final ServerRequestCarryOver carried = new ServerRequestCarryOver();

    private static IncomingRequest request(int id, String threadId) {
        ObjectNode message = JSON.createObjectNode().put("id", id).put("method", "item/commandExecution/requestApproval");
        message.putObject("params").put("threadId", threadId).put("itemId", "call-" + id);
        return new IncomingRequest(RequestId.of(id), "item/commandExecution/requestApproval", message);
    }

    private static Reason reason(CompletableFuture<?> stage) {
        Throwable[] seen = new Throwable[1];
        stage.whenComplete((v, e) -> seen[0] = e);
        assertThat(stage).isCancelled();
        assertThat(seen[0]).isInstanceOf(ServerRequestWithdrawnException.class);
        return ((ServerRequestWithdrawnException) seen[0]).reason();
    }

    @Test
    void aHandlingParkedAtTheLossAnswersTheReplayAndIsNotAskedAgain() {
        CompletableFuture<ServerRequestReply> deciding = new CompletableFuture<>();
        int[] asked = {0};
        CompletableFuture<ServerRequestReply> first = carried.handle(request(0, "t"), () -> true, r -> {
            asked[0]++;
            return deciding;
        });
        Futures.cancel(first, new ServerRequestWithdrawnException(Reason.GONE));   // the connection was lost

        CompletableFuture<ServerRequestReply> replay = carried.handle(request(0, "t"), () -> false, r -> {
            asked[0]++;
            return new CompletableFuture<>();
        });
        deciding.complete(new ServerRequestReply.Result(JSON.createObjectNode()));

        assertThat(asked[0]).isEqualTo(1);
        assertThat(replay).isCompleted();
        assertThat(carried.size()).isZero();
    }

    @Test
    void aParkedRequestWhoseThreadCannotSendItAgainIsGone() {
        CompletableFuture<ServerRequestReply> deciding = new CompletableFuture<>();
        Futures.cancel(carried.handle(request(0, "t"), () -> true, r -> deciding),
                new ServerRequestWithdrawnException(Reason.GONE));

        carried.cancelThread("t");

        assertThat(reason(deciding)).isEqualTo(Reason.GONE);
    }

    @Test
    void aNewRequestUnderTheIdOfAParkedOneEndsTheParkedOneAsGone() {
        CompletableFuture<ServerRequestReply> deciding = new CompletableFuture<>();
        Futures.cancel(carried.handle(request(0, "t"), () -> true, r -> deciding),
                new ServerRequestWithdrawnException(Reason.GONE));

        carried.handle(request(0, "another thread"), () -> false, r -> new CompletableFuture<>());

        assertThat(reason(deciding)).isEqualTo(Reason.GONE);
    }

    @Test
    void givingUpTellsTheParkedHandlingsTheReasonItIsGiven() {
        CompletableFuture<ServerRequestReply> deciding = new CompletableFuture<>();
        Futures.cancel(carried.handle(request(0, "t"), () -> true, r -> deciding),
                new ServerRequestWithdrawnException(Reason.DISCONNECTED));

        carried.cancelAll(Reason.DISCONNECTED);

        assertThat(reason(deciding)).isEqualTo(Reason.DISCONNECTED);
    }

    @Test
    void aWithdrawalWhileConnectedReachesTheHandlingWithItsReason() {
        CompletableFuture<ServerRequestReply> deciding = new CompletableFuture<>();
        CompletableFuture<ServerRequestReply> stage = carried.handle(request(0, "t"), () -> false, r -> deciding);

        Futures.cancel(stage, new ServerRequestWithdrawnException(Reason.RESOLVED));

        assertThat(reason(deciding)).isEqualTo(Reason.RESOLVED);
        assertThat(carried.size()).isZero();
    }
}
