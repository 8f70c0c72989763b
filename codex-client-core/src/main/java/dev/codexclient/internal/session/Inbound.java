package dev.codexclient.internal.session;

import dev.codexclient.ServerInfo;
import dev.codexclient.Subscription;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.internal.requests.ServerRequestCarryOver;
import dev.codexclient.internal.requests.ServerRequestRouter;
import dev.codexclient.internal.requests.ThreadApprovals;
import dev.codexclient.internal.requests.ToolTable;
import dev.codexclient.internal.rpc.Callbacks;
import dev.codexclient.internal.rpc.IncomingNotification;
import dev.codexclient.internal.rpc.IncomingRequest;
import dev.codexclient.internal.rpc.RpcConnection;
import dev.codexclient.internal.rpc.ServerRequestReply;
import dev.codexclient.protocol.ServerNotification;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What arrives on the client's connections and who gets it: each notification goes to the client's notification
 * listeners, then to its thread's state ({@link HeldThreads}); each server request goes to the
 * {@link ServerRequestRouter} through the connection's link to the supervisor, which carries it over a restart. One
 * per client; {@link #handler} makes the handler of each connection. Without a restart policy a server request goes
 * from the connection straight to {@code ServerRequestRouter}; with one, through the {@link ServerRequestCarryOver}.
 *
 * <p>Threading: notifications arrive on their thread's delivery lane; server requests on the callback executor.
 */
final class Inbound {
    private final Listeners<ServerNotification> listeners = new Listeners<>("notification");
    private final HeldThreads held;
    private final ServerRequestRouter serverRequests;
    /** The handlings carried over a restart; null without a restart policy, which keeps the supervisor off the way. */
    private final ServerRequestCarryOver carried;
    private final ToolTable tools;
    private final ThreadApprovals approvals;
    private final Callbacks callbacks;
    /** What the server said of itself last: a newer server's unknown method is named as such. */
    private final Supplier<ServerInfo> serverInfo;
    /** Set once the connection ended for good: a subscription added from then on is ended at once. */
    private volatile CodexTransportException ended;

    /**
     * @param preset         notification listeners registered on the builder, before the handshake
     * @param held           the threads held, which get their threads' notifications
     * @param serverRequests answers the server's requests
     * @param carried        carries handlings over a restart; null without a restart policy
     * @param tools          the dynamic tools, a closed thread's own forgotten
     * @param approvals      the approval policies of single threads, a closed thread's forgotten
     * @param callbacks      the client's lanes
     * @param serverInfo     what the server said of itself last
     */
    Inbound(List<Consumer<ServerNotification>> preset, HeldThreads held, ServerRequestRouter serverRequests,
            ServerRequestCarryOver carried, ToolTable tools, ThreadApprovals approvals, Callbacks callbacks,
            Supplier<ServerInfo> serverInfo) {
        preset.forEach(listeners::add);
        this.held = held;
        this.serverRequests = serverRequests;
        this.carried = carried;
        this.tools = tools;
        this.approvals = approvals;
        this.callbacks = callbacks;
        this.serverInfo = serverInfo;
    }

    /** {@return the handler of what one connection receives, which reports its end to {@code link}} */
    RpcConnection.Handler handler(ConnectionSupervisor.Link link) {
        // Under a restart policy, a request the server sends again after a restart is answered by the handling
        // already deciding it; without one, the request goes straight to ServerRequestRouter.
        Function<IncomingRequest, CompletableFuture<ServerRequestReply>> requests = carried == null
                ? serverRequests::route : request -> carried.handle(request, link::restarting, serverRequests::route);
        return new RpcConnection.Handler() {
            @Override
            public void onNotification(IncomingNotification raw) {
                ServerNotification n = raw.notification();
                String threadId = raw.threadId().orElse(null);
                if (threadId != null && n instanceof ServerNotification.ThreadClosed) {
                    // Unloaded: it calls no tool and asks no approval before a thread/resume, which declares its
                    // options again. Before the listeners, so one that sees the closing sees them gone.
                    tools.forget(threadId);
                    approvals.forget(threadId);
                }
                listeners.deliver(n);
                if (threadId != null) {
                    held.dispatch(threadId, raw.turnId().orElse(null), n, raw.size());
                }
            }

            @Override
            public CompletionStage<ServerRequestReply> onRequest(IncomingRequest request) {
                return requests.apply(request);
            }

            @Override
            public CodexRpcException refineError(CodexRpcException error) {
                return UnknownMethodErrors.refine(error, serverInfo.get());
            }

            @Override
            public void onClosed(CodexTransportException cause) {
                // The supervisor decides: a restart, or the end (then ended()).
                link.closed(cause);
            }
        };
    }

    /**
     * Adds a listener of every notification.
     *
     * @param listener the listener
     * @return its subscription
     */
    Subscription onNotification(Consumer<? super ServerNotification> listener) {
        return listeners.add(listener);
    }

    /**
     * Like {@link #onNotification}, with {@code onEnd} told why when the connection ends.
     *
     * @param listener the listener
     * @param onEnd    told why the connection ended
     * @return its subscription
     */
    Subscription subscribe(Consumer<? super ServerNotification> listener, Consumer<Throwable> onEnd) {
        Listeners.Entry<ServerNotification> entry = listeners.entry(listener, () -> { }, onEnd);
        listeners.add(entry);
        // Added after the end was handed out, it would otherwise never be told (one added while it is handed out
        // may be told twice; ending is idempotent).
        CodexTransportException cause = ended;
        if (cause != null) {
            entry.end(cause);
        }
        return entry;
    }

    /**
     * The connection ended for good: lets go of every thread, each on its lane behind the events queued for it, then
     * ends the notifications' subscriptions behind what every lane still holds, then runs {@code last}. Nothing here
     * waits for the lanes: a listener blocked on a turn of another thread is released by that turn's failure on its
     * own lane.
     *
     * @param cause why it ended
     * @param last  what to tell last (the end of the connection, to the telemetry listener)
     */
    void ended(CodexTransportException cause, Runnable last) {
        ended = cause;
        held.releaseAll(cause);
        callbacks.afterQueuedEvents(() -> {
            listeners.endAll(cause);
            last.run();
        });
    }

    /** {@return how many notification listeners the client has} */
    int listenerCount() {
        return listeners.size();
    }
}
