package dev.codexclient.internal.session;

import dev.codexclient.Subscription;
import dev.codexclient.errors.CodexDeadlockException;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.internal.flow.BufferedSubscription;
import dev.codexclient.internal.rpc.Callbacks;
import dev.codexclient.internal.rpc.Lanes;
import dev.codexclient.internal.rpc.RpcConnection;
import dev.codexclient.protocol.ClientRequestMethods;
import dev.codexclient.protocol.RequestId;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadSearchCancelParams;
import dev.codexclient.protocol.ThreadSearchParams;
import dev.codexclient.protocol.ThreadSearchResponse;
import dev.codexclient.protocol.ThreadSearchResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One streamed thread search ({@code thread/search/stream}), the engine behind {@code ThreadSearch}.
 *
 * <p>What codex does (0.171.0, seen on the real binary): it answers the request with the final, authoritative page
 * ({@link ThreadSearchResponse}) and may send before it, on the same connection, {@code thread/search/partial}
 * notifications keyed by the request's id: a few provisional rows, best effort (none at all for a quick search),
 * never after the answer. {@code thread/search/stream/cancel} with the request's id is acknowledged with
 * {@code {}} (for any id, idempotently); the search then fails with {@code -32600 "thread search cancelled"}, unless
 * it completed first.
 *
 * <p>The engine listens for the partials before it sends the request, and learns the request's id before the
 * request leaves (an overloaded attempt is sent again under a new id). Partials arrive on the connection's global
 * delivery lane, so the end is queued on that lane when the answer comes: every partial that preceded the answer on
 * the wire is taken before the rows end and the result completes.
 *
 * <p>Rows are kept, at most {@code bufferRows} of them; further rows are dropped and counted ({@link #droppedRows}):
 * partials are provisional by contract and the final page has them all. So a consumer, an iterator or a Flow
 * subscriber, joining at any time reads every kept row from the first, and none can overflow.
 */
public final class ThreadSearchEngine {
    /**
     * What a search needs of the client.
     *
     * @param calls         sends the search and its cancel
     * @param waits         how a caller blocks, and where it must not
     * @param callbacks     the delivery lanes: the partials arrive on the global one
     * @param flows         the publishers' subscriptions
     * @param notifications subscribes to every notification, with the connection's end
     * @param bufferRows    the most partial rows kept
     */
    public record Context(Calls calls, Waits waits, Callbacks callbacks, FlowPublishers flows,
                          FlowPublishers.HotSource notifications, int bufferRows) {
    }

    private final Context context;
    private final Object lock = new Object();
    // Guarded by lock.
    private final List<ThreadSearchResult> rows = new ArrayList<>();
    private final List<BufferedSubscription<ThreadSearchResult>> subscribers = new ArrayList<>();
    private RequestId requestId;
    private boolean ended;
    private boolean cancelRequested;
    private CompletableFuture<Void> cancelCall;
    private boolean closed;

    private final AtomicLong dropped = new AtomicLong();
    /** Completes on the global lane after the partials that preceded the answer: the result, or why there is none. */
    private final CompletableFuture<ThreadSearchResponse> outcome = new CompletableFuture<>();
    private Subscription partials;
    private CompletableFuture<ThreadSearchResponse> call;

    private ThreadSearchEngine(Context context) {
        this.context = context;
    }

    /**
     * Starts a search: listens for its partials, then sends it.
     *
     * @param context what the search needs of the client
     * @param params  the search
     * @return the running search
     */
    static ThreadSearchEngine start(Context context, ThreadSearchParams params) {
        ThreadSearchEngine engine = new ThreadSearchEngine(context);
        engine.partials = context.notifications().subscribe(engine::onNotification, cause -> { });
        engine.call = context.calls().call(ClientRequestMethods.THREAD_SEARCH_STREAM, params, engine::sent);
        engine.call.whenComplete((r, e) -> context.callbacks().onLane(Lanes.GLOBAL, () -> engine.end(r, e)));
        return engine;
    }

    /** The id of an attempt, told before it is sent. */
    private void sent(RequestId id) {
        synchronized (lock) {
            requestId = id;
        }
    }

    /** On the global lane. */
    private void onNotification(ServerNotification n) {
        if (!(n instanceof ServerNotification.ThreadSearchPartial partial)) {
            return;
        }
        List<BufferedSubscription<ThreadSearchResult>> to;
        List<ThreadSearchResult> taken = new ArrayList<>();
        synchronized (lock) {
            if (ended || requestId == null || !requestId.equals(partial.params().requestId())) {
                return;
            }
            for (ThreadSearchResult row : partial.params().data()) {
                if (rows.size() < context.bufferRows()) {
                    rows.add(row);
                    taken.add(row);
                } else {
                    dropped.incrementAndGet();
                }
            }
            to = List.copyOf(subscribers);
            lock.notifyAll();
        }
        for (BufferedSubscription<ThreadSearchResult> s : to) {
            taken.forEach(s::offer);
        }
    }

    /** On the global lane, behind the partials that preceded the answer. */
    private void end(ThreadSearchResponse response, Throwable error) {
        List<BufferedSubscription<ThreadSearchResult>> to;
        Throwable failure = null;
        synchronized (lock) {
            if (ended) {
                return;
            }
            ended = true;
            if (error != null) {
                Throwable cause = RpcConnection.unwrap(error);
                // codex fails a cancelled search with -32600 "thread search cancelled"; a cancel that raced the
                // answer leaves the result as it came.
                failure = cancelRequested && (cause instanceof CodexRpcException || cause instanceof CancellationException)
                        ? new CancellationException("the thread search was cancelled") : cause;
            }
            to = List.copyOf(subscribers);
            subscribers.clear();
            lock.notifyAll();
        }
        partials.close();
        for (BufferedSubscription<ThreadSearchResult> s : to) {
            if (failure == null) {
                s.complete();
            } else {
                s.error(failure);
            }
        }
        if (failure == null) {
            outcome.complete(response);
        } else {
            outcome.completeExceptionally(failure);
        }
    }

    /** {@return the request's id once it was sent; null before} */
    public RequestId requestId() {
        synchronized (lock) {
            return requestId;
        }
    }

    /** {@return the partial rows received so far (at most the buffer's size)} */
    public List<ThreadSearchResult> rows() {
        synchronized (lock) {
            return List.copyOf(rows);
        }
    }

    /** {@return how many partial rows were dropped because the buffer was full} */
    public long droppedRows() {
        return dropped.get();
    }

    /**
     * Sends {@code thread/search/stream/cancel} unless the search has ended; once.
     *
     * @return completes when codex acknowledged the cancel (at once when there was nothing to cancel)
     */
    public CompletableFuture<Void> cancel() {
        RequestId id;
        synchronized (lock) {
            if (ended) {
                return CompletableFuture.completedFuture(null);
            }
            if (cancelCall != null) {
                return cancelCall;
            }
            cancelRequested = true;
            id = requestId;
            if (id == null) {
                // Not sent yet (waiting for the connection of a restart): it never leaves.
                cancelCall = CompletableFuture.completedFuture(null);
            }
        }
        if (id == null) {
            call.cancel(false);
            return cancelCall;
        }
        CompletableFuture<Void> sent = context.calls().call(ClientRequestMethods.THREAD_SEARCH_STREAM_CANCEL,
                ThreadSearchCancelParams.builder().requestId(id).build()).thenApply(r -> null);
        synchronized (lock) {
            cancelCall = sent;
        }
        return sent;
    }

    /** Ends the iterations (they return no more rows), and cancels the search if it still runs. */
    public void close() {
        synchronized (lock) {
            closed = true;
            lock.notifyAll();
        }
        cancel();
    }

    /** {@return whether the search has ended: answered, failed or cancelled} */
    public boolean isDone() {
        return outcome.isDone();
    }

    /** Fails fast where a wait for the search could never end: on the lane that delivers its rows and end. */
    public void checkMayAwait(String what) {
        context.waits().checkMayBlock(what);
        if (context.callbacks().isOnLane(Lanes.GLOBAL)) {
            throw new CodexDeadlockException(what + " was called while delivering a notification that belongs to no"
                    + " thread (in a client listener): the rows and the end of a thread search are delivered one"
                    + " after another on this very thread, so the search cannot end while it waits. Use"
                    + " search.result().thenAccept(…) instead");
        }
    }

    /** {@return the kept rows from the first, blocking until the next arrives or the search ends} */
    public Iterator<ThreadSearchResult> iterator() {
        return new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
                synchronized (lock) {
                    while (!closed && next >= rows.size() && !ended) {
                        checkMayAwait("iterating a thread search");
                        try {
                            lock.wait();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new CodexException("interrupted while waiting for the rows of a thread search", e);
                        }
                    }
                    return !closed && next < rows.size();
                }
            }

            @Override
            public ThreadSearchResult next() {
                synchronized (lock) {
                    if (!hasNext()) {
                        throw new NoSuchElementException();
                    }
                    return rows.get(next++);
                }
            }
        };
    }

    /**
     * {@return a publisher of the kept rows from the first; it ends with the search} A subscriber joins on the
     * global lane, so its backlog and the live rows, both taken there, come in order.
     */
    public Flow.Publisher<ThreadSearchResult> publisher() {
        return subscriber -> {
            BufferedSubscription<ThreadSearchResult> s = context.flows().items(subscriber, "a thread search");
            context.callbacks().onLane(Lanes.GLOBAL, () -> {
                boolean over;
                synchronized (lock) {
                    rows.forEach(s::offerBacklog);
                    over = ended;
                    if (!over) {
                        subscribers.add(s);
                    }
                }
                if (over) {
                    outcome.whenComplete((r, e) -> {
                        if (e == null) {
                            s.complete();
                        } else {
                            s.error(RpcConnection.unwrap(e));
                        }
                    });
                } else {
                    s.onRelease(() -> {
                        synchronized (lock) {
                            subscribers.remove(s);
                        }
                    });
                }
            });
        };
    }

    /** {@return the search's end, to wait for: its final page, after every partial row before it was taken} */
    public Outcome<ThreadSearchResponse> end() {
        return new Outcome<>(context.waits(), this::checkMayAwait, "search.await()", "the result of a thread search",
                () -> outcome);
    }
}
