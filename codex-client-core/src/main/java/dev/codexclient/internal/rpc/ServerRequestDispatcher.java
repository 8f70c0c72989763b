package dev.codexclient.internal.rpc;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.ServerRequestWithdrawnException;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.internal.Futures;
import dev.codexclient.protocol.RequestId;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Requests from the server: runs each one's handling where handlers run, answers it exactly once with its
 * {@link ServerRequestReply} (a result, or a JSON-RPC error), cancels the handling when the server withdraws the
 * request ({@code serverRequest/resolved}) and then sends no reply, and cancels every handling when the connection
 * ends.
 *
 * <p>Threading: {@link #dispatch} and {@link #withdraw} from the reader thread; handlings where handlers run;
 * replies from whichever thread completes a handling's stage.
 */
final class ServerRequestDispatcher {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(ServerRequestDispatcher.class);
    }

    /** Writes one reply; returns quietly when it cannot (the server is gone, or stopped waiting). */
    interface Replies {
        void send(byte[] reply, IncomingRequest request);
    }

    private final Function<IncomingRequest, ? extends CompletionStage<ServerRequestReply>> handler;
    private final Executor handlers;
    private final WireCodec codec;
    private final Replies replies;
    private final UnaryOperator<String> redactor;
    private final Map<RequestId, CompletableFuture<ServerRequestReply>> inflight = new ConcurrentHashMap<>();

    /**
     * @param handler  answers a request; its stage is cancelled when the server withdraws the request
     * @param handlers where handlers run
     */
    ServerRequestDispatcher(Function<IncomingRequest, ? extends CompletionStage<ServerRequestReply>> handler,
                            Executor handlers, WireCodec codec, Replies replies, UnaryOperator<String> redactor) {
        this.handler = handler;
        this.handlers = handlers;
        this.codec = codec;
        this.replies = replies;
        this.redactor = redactor;
    }

    void dispatch(IncomingRequest request) {
        CompletableFuture<ServerRequestReply> answer = new CompletableFuture<>();
        inflight.put(request.id(), answer);
        AtomicBoolean replied = new AtomicBoolean();
        answer.whenComplete((reply, error) -> {
            // Removed only if still ours: a withdrawn request was removed by withdraw() and gets no reply.
            boolean ours = inflight.remove(request.id(), answer);
            if (!ours || answer.isCancelled() || !replied.compareAndSet(false, true)) {
                return;
            }
            if (error != null) {
                replyError(request, RpcConnection.unwrap(error));
            } else if (reply instanceof ServerRequestReply.Result r) {
                reply(request, r.result());
            } else if (reply instanceof ServerRequestReply.Failure f) {
                replyError(request, RpcConnection.unwrap(f.cause()));
            } else {
                // A reply is a result or a failure, nothing else: no reply at all is the client layer's mistake,
                // answered as an error so that the server neither waits nor reads it as an acceptance.
                replyError(request, noReply(request));
            }
        });
        try {
            handlers.execute(() -> {
                if (answer.isDone()) {
                    return;
                }
                try {
                    CompletionStage<ServerRequestReply> stage = handler.apply(request);
                    if (stage == null) {
                        answer.completeExceptionally(noReply(request));
                        return;
                    }
                    CompletableFuture<ServerRequestReply> source = stage.toCompletableFuture();
                    // Cancelling our future (a withdrawn request, the connection's end) reaches the handling.
                    Futures.bridge(source, answer, (CancellationException why) -> Futures.cancel(source, why));
                } catch (Throwable t) {
                    answer.completeExceptionally(t);
                }
            });
        } catch (RejectedExecutionException e) {
            answer.complete(new ServerRequestReply.Failure(new CodexException("client is closing")));
        }
    }

    private static IllegalStateException noReply(IncomingRequest request) {
        return new IllegalStateException("the client's handling of " + request.method() + " gave no reply");
    }

    /** The server no longer wants an answer: cancel the handler, and make sure no reply goes out. */
    void withdraw(RequestId id) {
        CompletableFuture<?> running = inflight.remove(id);
        if (running != null) {
            Log.LOG.debug("Server withdrew request {}; cancelling its handler", id);
            Futures.cancel(running, new ServerRequestWithdrawnException(ServerRequestWithdrawnException.Reason.RESOLVED));
        }
    }

    /**
     * The connection ended: cancel every handler still running, telling them why; none of them replies.
     *
     * @param why {@code GONE} when the server was the connection's child process, {@code DISCONNECTED} otherwise
     */
    void cancelAll(ServerRequestWithdrawnException.Reason why) {
        for (CompletableFuture<?> running : new ArrayList<>(inflight.values())) {
            Futures.cancel(running, new ServerRequestWithdrawnException(why));
        }
        inflight.clear();
    }

    /** How many requests are being handled. */
    int inflightCount() {
        return inflight.size();
    }

    private void reply(IncomingRequest request, JsonNode result) {
        byte[] bytes;
        try {
            bytes = codec.encodeResult(request.id(), result);
        } catch (IOException | RuntimeException e) {
            Log.LOG.warn("Could not serialise the reply to {} (id {}); answering with an internal error",
                    request.method(), request.id(), e);
            replyError(request, new CodexException("the client could not serialise its reply"));
            return;
        }
        replies.send(bytes, request);
    }

    private void replyError(IncomingRequest request, Throwable error) {
        int code;
        String message;
        JsonNode data = null;
        if (error instanceof CodexRpcException rpc) {
            code = rpc.code();
            message = rpc.serverMessage();
            data = rpc.data().orElse(null);
        } else if (error instanceof IllegalArgumentException) {
            code = CodexRpcException.INVALID_PARAMS;
            message = String.valueOf(error.getMessage());
        } else if (error instanceof UnsupportedOperationException) {
            code = CodexRpcException.METHOD_NOT_FOUND;
            message = String.valueOf(error.getMessage());
        } else {
            code = CodexRpcException.INTERNAL_ERROR;
            // Only the message travels: stack traces stay in our logs.
            message = "client handler failed: " + error.getClass().getSimpleName()
                    + (error.getMessage() == null ? "" : ": " + error.getMessage());
            Log.LOG.warn("Handler for {} (id {}) failed", request.method(), request.id(), error);
        }
        try {
            replies.send(codec.encodeError(request.id(), code, redactor.apply(message), data), request);
        } catch (IOException e) {
            Log.LOG.error("Could not serialise an error reply", e);
        }
    }
}
