package dev.codexclient.internal.requests;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.ServerRequestWithdrawnException;
import dev.codexclient.ServerRequestWithdrawnException.Reason;
import dev.codexclient.internal.Futures;
import dev.codexclient.internal.rpc.IncomingRequest;
import dev.codexclient.internal.rpc.ServerRequestReply;
import dev.codexclient.protocol.RequestId;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries the handling of the server's requests across a lost connection, so that each reaches the user's handler
 * once and is answered once.
 *
 * <p>codex keeps a thread's pending approvals and user-input requests when its connection drops, and sends them
 * again, with their original ids, to the connection that resumes the thread. A handler still deciding when the
 * connection was lost is therefore not cancelled but parked; the request's replay on the new connection is
 * answered by that same handling (its decision, when it comes, goes to the new connection), and the user's handler
 * is not called a second time. A parked request that cannot come back (its turn ended or was lost, its thread
 * could not be resumed, the client gave up or closed) is cancelled, as a withdrawn request is, with the reason
 * {@code GONE} (or, when the client gave up or closed on a server it did not start, {@code DISCONNECTED}).
 *
 * <p>A replay is recognised by its id, method and params together: a restarted server numbers its requests afresh,
 * and a new request with an old id is a new request.
 */
public final class ServerRequestCarryOver {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(ServerRequestCarryOver.class);
    }


    /** A handling whose connection was lost before it answered. */
    private record Parked(String method, JsonNode params, CompletableFuture<ServerRequestReply> stage) {
        String threadId() {
            JsonNode t = params == null ? null : params.get("threadId");
            return t == null || !t.isTextual() ? null : t.textValue();
        }
    }

    private final Map<RequestId, Parked> parked = new ConcurrentHashMap<>();

    /**
     * Handles {@code request}: a replay of a parked request gets that request's handling; any other goes to
     * {@code handler}. The returned stage is what the connection answers with; cancelled by the connection,
     * it parks the handling when the connection is lost ({@code lost} true then) and cancels it otherwise (a
     * request the server withdrew).
     */
    public CompletableFuture<ServerRequestReply> handle(IncomingRequest request, BooleanSupplier lost,
                                                        Function<IncomingRequest, CompletableFuture<ServerRequestReply>>
                                                                handler) {
        JsonNode params = request.message().get("params");
        Parked earlier = parked.remove(request.id());
        CompletableFuture<ServerRequestReply> handling;
        if (earlier != null && earlier.method().equals(request.method())
                && Objects.equals(earlier.params(), params)) {
            Log.LOG.debug("{} (id {}) sent again after the connection was restarted: answered by its first handling",
                    request.method(), request.id());
            handling = earlier.stage();
        } else {
            if (earlier != null) {
                // A new request under an old id: a restarted server, which does not have the old one.
                gone(earlier.stage());
            }
            handling = handler.apply(request);
        }
        CompletableFuture<ServerRequestReply> decided = handling;
        // The connection's stage for this request; its cancellation parks the handling or cancels it.
        return Futures.bridge(decided, new CompletableFuture<>(), (CancellationException why) -> {
            if (decided.isDone()) {
                return;
            }
            if (lost.getAsBoolean()) {
                parked.put(request.id(), new Parked(request.method(), params, decided));
            } else {
                Futures.cancel(decided, why);
            }
        });
    }

    /** The requests of {@code threadId} cannot come back (its turns are over or lost): cancels their handling. */
    public void cancelThread(String threadId) {
        parked.entrySet().removeIf(e -> {
            if (threadId.equals(e.getValue().threadId())) {
                gone(e.getValue().stage());
                return true;
            }
            return false;
        });
    }

    /** Cancels the parked requests of no thread: codex sends only a thread's requests again. */
    public void cancelThreadless() {
        parked.entrySet().removeIf(e -> {
            if (e.getValue().threadId() == null) {
                gone(e.getValue().stage());
                return true;
            }
            return false;
        });
    }

    /**
     * Nothing can come back to this client (it gave up or closed): cancels every parked handling.
     *
     * @param why {@code GONE} when the server was the client's child process, {@code DISCONNECTED} when it is a
     *            server of its own, which may send the requests again to another client
     */
    public void cancelAll(Reason why) {
        parked.values().forEach(p -> Futures.cancel(p.stage(), new ServerRequestWithdrawnException(why)));
        parked.clear();
    }

    private static void gone(CompletableFuture<?> stage) {
        Futures.cancel(stage, new ServerRequestWithdrawnException(Reason.GONE));
    }

    public int size() {
        return parked.size();
    }
}
