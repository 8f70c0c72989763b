package dev.codexclient.internal.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.ServerRequestWithdrawnException;
import dev.codexclient.ServerRequestWithdrawnException.Reason;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.protocol.RequestId;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Server requests: one answer each, with the request's id; a withdrawn request's handler is cancelled and never
 * answers. Handlers run on a same-thread executor here, so every step is done when the call returns.
 */
class ServerRequestDispatcherTest {
    private final ObjectMapper mapper = new ObjectMapper();
    private final List<JsonNode> replies = new ArrayList<>();
    private Function<IncomingRequest, CompletionStage<ServerRequestReply>> handler =
            r -> CompletableFuture.completedFuture(new ServerRequestReply.Result(mapper.createObjectNode()));
    private final ServerRequestDispatcher dispatcher = new ServerRequestDispatcher(r -> handler.apply(r),
            Runnable::run, new JsonWireCodec(mapper), (bytes, request) -> {
                try {
                    replies.add(mapper.readTree(bytes));
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
            }, s -> s.replace("sk-SECRET", "[REDACTED]"));

    private IncomingRequest request(RequestId id, String method) {
        ObjectNode message = mapper.createObjectNode();
        message.put("method", method).putObject("params").put("threadId", "t");
        return new IncomingRequest(id, method, message);
    }

    @Test
    void aResultIsSentUnderTheRequestsIdAndIdType() {
        handler = r -> CompletableFuture.completedFuture(new ServerRequestReply.Result(
                mapper.createObjectNode().put("decision", "accept")));
        dispatcher.dispatch(request(RequestId.of(7), "item/commandExecution/requestApproval"));
        dispatcher.dispatch(request(RequestId.of("abc-1"), "x"));

        assertThat(replies).hasSize(2);
        assertThat(replies.get(0).get("id").isIntegralNumber()).isTrue();
        assertThat(replies.get(0).get("id").asLong()).isEqualTo(7);
        assertThat(replies.get(0).get("result").get("decision").asText()).isEqualTo("accept");
        assertThat(replies.get(1).get("id").textValue()).isEqualTo("abc-1");
        assertThat(dispatcher.inflightCount()).isZero();
    }

    @Test
    void noReplyAtAllIsAnsweredWithAnInternalErrorNotReadAsAnAcceptance() {
        // A reply is a result or a failure: a null stage, or a stage of null, is the client layer's mistake.
        handler = r -> null;
        dispatcher.dispatch(request(RequestId.of(1), "item/commandExecution/requestApproval"));
        handler = r -> CompletableFuture.completedFuture(null);
        dispatcher.dispatch(request(RequestId.of(2), "item/commandExecution/requestApproval"));

        assertThat(replies).hasSize(2).allSatisfy(r -> {
            assertThat(r.has("result")).isFalse();
            assertThat(r.get("error").get("code").asInt()).isEqualTo(CodexRpcException.INTERNAL_ERROR);
            assertThat(r.get("error").get("message").asText()).contains("gave no reply");
        });
        assertThat(dispatcher.inflightCount()).isZero();
    }

    @Test
    void aJsonNullResultGoesOnTheWireAsNull() {
        handler = r -> CompletableFuture.completedFuture(new ServerRequestReply.Result(mapper.nullNode()));
        dispatcher.dispatch(request(RequestId.of(1), "m"));
        assertThat(replies).singleElement().satisfies(r -> assertThat(r.get("result").isNull()).isTrue());
    }

    @Test
    void failuresBecomeErrorRepliesWithTheirCodeAndNoStackTrace() {
        handler = r -> {
            throw new IllegalStateException("kaboom sk-SECRET");
        };
        dispatcher.dispatch(request(RequestId.of(1), "item/tool/call"));
        handler = r -> CompletableFuture.completedFuture(new ServerRequestReply.Failure(
                new IllegalArgumentException("bad params")));
        dispatcher.dispatch(request(RequestId.of(2), "m"));
        handler = r -> CompletableFuture.failedFuture(new UnsupportedOperationException("no such method"));
        dispatcher.dispatch(request(RequestId.of(3), "m"));
        handler = r -> CompletableFuture.completedFuture(new ServerRequestReply.Failure(new CodexRpcException("",
                -32099, "custom", mapper.createObjectNode().put("why", "because"))));
        dispatcher.dispatch(request(RequestId.of(4), "m"));

        assertThat(replies).extracting(r -> r.get("error").get("code").asInt())
                .containsExactly(-32603, -32602, -32601, -32099);
        assertThat(replies.get(0).get("error").get("message").asText())
                .contains("kaboom [REDACTED]").doesNotContain("at dev.").doesNotContain("sk-SECRET");
        assertThat(replies.get(3).get("error").get("data").get("why").asText()).isEqualTo("because");
    }

    @Test
    void aWithdrawnRequestCancelsItsHandlerAndIsNeverAnswered() {
        CompletableFuture<ServerRequestReply> stage = new CompletableFuture<>();
        handler = r -> stage;
        dispatcher.dispatch(request(RequestId.of(0), "item/commandExecution/requestApproval"));
        assertThat(dispatcher.inflightCount()).isEqualTo(1);

        dispatcher.withdraw(RequestId.of(0));

        assertThat(stage).isCancelled();
        assertThat(reason(stage)).isEqualTo(Reason.RESOLVED);
        stage.complete(new ServerRequestReply.Result(mapper.createObjectNode())); // no effect: already cancelled
        assertThat(replies).isEmpty();
        assertThat(dispatcher.inflightCount()).isZero();
    }

    @Test
    void cancelAllStopsEveryHandlerWithoutReplies() {
        CompletableFuture<ServerRequestReply> a = new CompletableFuture<>();
        CompletableFuture<ServerRequestReply> b = new CompletableFuture<>();
        List<CompletableFuture<ServerRequestReply>> stages = new ArrayList<>(List.of(a, b));
        handler = r -> stages.remove(0);
        dispatcher.dispatch(request(RequestId.of(0), "m"));
        dispatcher.dispatch(request(RequestId.of(1), "m"));

        dispatcher.cancelAll(Reason.DISCONNECTED);

        assertThat(a).isCancelled();
        assertThat(b).isCancelled();
        assertThat(reason(a)).isEqualTo(Reason.DISCONNECTED);
        assertThat(reason(b)).isEqualTo(Reason.DISCONNECTED);
        assertThat(replies).isEmpty();
        assertThat(dispatcher.inflightCount()).isZero();
    }

    @Test
    void aRequestThatArrivesAsTheClientClosesIsAnsweredWithAnError() {
        ServerRequestDispatcher closing = new ServerRequestDispatcher(r -> handler.apply(r), task -> {
            throw new RejectedExecutionException("shut down");
        }, new JsonWireCodec(mapper), (bytes, request) -> {
            try {
                replies.add(mapper.readTree(bytes));
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }, s -> s);
        closing.dispatch(request(RequestId.of(5), "m"));
        assertThat(replies).singleElement().satisfies(r -> {
            assertThat(r.get("id").asInt()).isEqualTo(5);
            assertThat(r.get("error").get("message").asText()).contains("client is closing");
        });
    }

    /** The reason a cancelled stage was cancelled with, as the handler reads it. */
    private static Reason reason(CompletableFuture<?> stage) {
        Throwable[] seen = new Throwable[1];
        stage.whenComplete((v, e) -> seen[0] = e);
        assertThat(seen[0]).isInstanceOf(ServerRequestWithdrawnException.class);
        return ((ServerRequestWithdrawnException) seen[0]).reason();
    }
}
