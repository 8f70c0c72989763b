package dev.codexclient.internal.rpc;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.protocol.RequestId;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Map;
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
 * Requests from the server: runs each one's handler on the callback executor, answers it exactly once with its
 * result or a JSON-RPC error, cancels the handler when the server withdraws the request
 * ({@code serverRequest/resolved}) and then sends no reply, and cancels every handler when the connection ends.
 *
 * <p>Threading: {@link #dispatch} and {@link #withdraw} from the reader thread; handlers on the callback executor;
 * replies from whichever thread completes a handler's stage.
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

    private final Function<IncomingRequest, CompletionStage<?>> handler;
    private final Executor callbacks;
    private final WireCodec codec;
    private final Replies replies;
    private final UnaryOperator<String> redactor;
    private final Map<RequestId, CompletableFuture<?>> inflight = new ConcurrentHashMap<>();
    /** Told how each request ended; null without a telemetry listener. */
    private final ServerRequestObserver observer;

    /**
     * @param handler answers a request: the stage's value is the {@code result}, a failure becomes an error reply;
     *                its stage is cancelled when the server withdraws the request
     */
    ServerRequestDispatcher(Function<IncomingRequest, CompletionStage<?>> handler, Executor callbacks, WireCodec codec,
                            Replies replies, UnaryOperator<String> redactor) {
        this(handler, callbacks, codec, replies, redactor, null);
    }

    /** @param observer told how each request ended; null for none */
    ServerRequestDispatcher(Function<IncomingRequest, CompletionStage<?>> handler, Executor callbacks, WireCodec codec,
                            Replies replies, UnaryOperator<String> redactor, ServerRequestObserver observer) {
        this.observer = observer;
        this.handler = handler;
        this.callbacks = callbacks;
        this.codec = codec;
        this.replies = replies;
        this.redactor = redactor;
    }

    void dispatch(IncomingRequest request) {
        CompletableFuture<Object> answer = new CompletableFuture<>();
        inflight.put(request.id(), answer);
        AtomicBoolean replied = new AtomicBoolean();
        long arrived = observer == null ? 0 : observer.nanoTime();
        answer.whenComplete((value, error) -> {
            // Removed only if still ours: a withdrawn request was removed by withdraw() and gets no reply.
            boolean ours = inflight.remove(request.id(), answer);
            if (!ours || answer.isCancelled() || !replied.compareAndSet(false, true)) {
                observe(request, arrived, null, null, true);
                return;
            }
            if (value instanceof ServerRequestAnswer decided) {
                // What the handler decided reaches the observer whole; the reply is the part the server reads.
                observe(request, arrived, decided, null, false);
                if (decided.error() == null) {
                    reply(request, decided.result());
                } else {
                    replyError(request, RpcConnection.unwrap(decided.error()));
                }
            } else if (error == null) {
                observe(request, arrived, value, null, false);
                reply(request, value);
            } else {
                Throwable cause = RpcConnection.unwrap(error);
                observe(request, arrived, null, cause, false);
                replyError(request, cause);
            }
        });
        try {
            callbacks.execute(() -> {
                if (answer.isDone()) {
                    return;
                }
                try {
                    CompletionStage<?> stage = handler.apply(request);
                    if (stage == null) {
                        answer.complete(null);
                        return;
                    }
                    CompletableFuture<?> cf = stage.toCompletableFuture();
                    // Cancelling our future (withdrawn request) propagates to the handler's own stage.
                    answer.whenComplete((v, e) -> {
                        if (answer.isCancelled()) {
                            cf.cancel(true);
                        }
                    });
                    cf.whenComplete((v, e) -> {
                        if (e == null) {
                            answer.complete(v);
                        } else {
                            answer.completeExceptionally(e);
                        }
                    });
                } catch (Throwable t) {
                    answer.completeExceptionally(t);
                }
            });
        } catch (RejectedExecutionException e) {
            answer.completeExceptionally(new CodexException("client is closing"));
        }
    }

    private void observe(IncomingRequest request, long arrived, Object result, Throwable error, boolean abandoned) {
        if (observer == null) {
            return;
        }
        try {
            observer.handled(request, arrived, result, error, abandoned);
        } catch (RuntimeException e) {
            Log.LOG.warn("Could not report the handling of {} (id {})", request.method(), request.id(), e);
        }
    }

    /** The server no longer wants an answer: cancel the handler, and make sure no reply goes out. */
    void withdraw(RequestId id) {
        CompletableFuture<?> running = inflight.remove(id);
        if (running != null) {
            Log.LOG.debug("Server withdrew request {}; cancelling its handler", id);
            running.cancel(true);
        }
    }

    /** The connection ended: cancel every handler still running; none of them replies. */
    void cancelAll() {
        for (CompletableFuture<?> running : new ArrayList<>(inflight.values())) {
            running.cancel(true);
        }
        inflight.clear();
    }

    /** How many requests are being handled. */
    int inflightCount() {
        return inflight.size();
    }

    private void reply(IncomingRequest request, Object result) {
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
