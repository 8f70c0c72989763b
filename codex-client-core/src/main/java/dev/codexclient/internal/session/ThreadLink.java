package dev.codexclient.internal.session;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.Subscription;
import dev.codexclient.internal.rpc.Callbacks;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadArchiveParams;
import dev.codexclient.protocol.ThreadCompactStartParams;
import dev.codexclient.protocol.ThreadForkParams;
import dev.codexclient.protocol.ThreadInfo;
import dev.codexclient.protocol.ThreadReadParams;
import dev.codexclient.protocol.ThreadReadResponse;
import dev.codexclient.protocol.ThreadRevertParams;
import dev.codexclient.protocol.ThreadRevertResponse;
import dev.codexclient.protocol.ThreadSetNameParams;
import dev.codexclient.protocol.ThreadUnarchiveParams;
import dev.codexclient.protocol.ThreadUnsubscribeParams;
import dev.codexclient.protocol.TurnStartParams;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One codex thread as the runtime knows it, and everything its public handle does: its id, the server's last
 * description of it given to the handle, the connection (by generation) it is known to be loaded on, and the
 * thread's calls, turns and listeners. The public handle is a view of it: each of the handle's methods is one call
 * here. Every handle of a thread wraps the same link while the runtime holds the thread.
 *
 * <p>Each blocking operation waits for the call itself and finishes on the calling thread; each async twin finishes
 * in a dependent of the call. So a blocking call needs nothing but the answer: no callback thread.
 */
public final class ThreadLink {

    /**
     * What every thread of a client works with, given once by the runtime.
     *
     * @param calls      the client's typed calls
     * @param waits      how the API blocks
     * @param held       the threads held
     * @param turns      the turn-start protocol
     * @param flows      the client's publishers
     * @param callbacks  the client's lanes
     * @param userMapper the mapper of the user's types (structured output)
     * @param links      the link of a thread the server described: the held one, or a new one
     */
    public record Context(Calls calls, Waits waits, HeldThreads held, TurnStarts turns, FlowPublishers flows,
                          Callbacks callbacks, ObjectMapper userMapper, Function<ThreadInfo, ThreadLink> links) {
    }

    private final Context context;
    private final String id;
    private volatile ThreadInfo info;
    /** The generation of the connection the thread is known to be loaded on; see {@link TurnStarts}. */
    private volatile long loadedOn;
    /** The public handle made over this link, so that every handle of a held thread is the same object. */
    private final AtomicReference<Object> handle = new AtomicReference<>();

    ThreadLink(Context context, ThreadInfo info, long loadedOn) {
        this.context = context;
        this.info = Objects.requireNonNull(info, "info");
        this.id = info.id();
        this.loadedOn = loadedOn;
    }

    /** {@return the thread id} */
    public String id() {
        return id;
    }

    /** {@return the thread as the server last described it to a handle} */
    public ThreadInfo info() {
        return info;
    }

    /**
     * {@return the public handle over this link: the first one offered, which every later caller gets too} The
     * runtime keeps it without knowing its type.
     *
     * @param <H>     the handle's type
     * @param offered a new handle, used when the link has none yet
     */
    @SuppressWarnings("unchecked")
    public <H> H handle(H offered) {
        return handle.compareAndSet(null, offered) ? offered : (H) handle.get();
    }

    /** {@return the mapper of the user's types, for a turn's structured output} */
    public ObjectMapper userMapper() {
        return context.userMapper();
    }

    // ------------------------------------------------------------------------------------------------ turns

    /**
     * Starts a turn, once the server accepted it, waiting at most the request timeout.
     *
     * @param params the {@code turn/start} params, naming this thread
     * @return the running turn
     */
    public TurnState startTurn(TurnStartParams params) {
        return context.turns().start(this, params);
    }

    /**
     * {@link #startTurn} without blocking.
     *
     * @param params the {@code turn/start} params, naming this thread
     * @return a future of the running turn
     */
    public CompletableFuture<TurnState> startTurnAsync(TurnStartParams params) {
        return context.turns().startAsync(this, params);
    }

    // ------------------------------------------------------------------------------------------------ calls

    /** {@return the thread as the server stores it now, with its turns; remembered as {@link #info()}} */
    public ThreadInfo read() {
        return remember(context.waits().call(readCall(), "thread/read").thread());
    }

    /** {@return {@link #read()} without blocking} */
    public CompletableFuture<ThreadInfo> readAsync() {
        return readCall().thenApply(r -> remember(r.thread()));
    }

    private CompletableFuture<ThreadReadResponse> readCall() {
        return context.calls().threadRead(ThreadReadParams.builder().threadId(id).includeTurns(true).build());
    }

    /**
     * Keeps the server's newest description of the thread.
     *
     * @param described the description
     * @return {@code described}
     */
    ThreadInfo remember(ThreadInfo described) {
        this.info = described;
        return described;
    }

    /** Sets the thread's name, waiting at most the request timeout. */
    public void setName(String name) {
        context.waits().call(setNameCall(name), "thread/name/set");
    }

    /** {@return {@link #setName} without blocking} */
    public CompletableFuture<Void> setNameAsync(String name) {
        return setNameCall(name).thenApply(r -> null);
    }

    private CompletableFuture<?> setNameCall(String name) {
        return context.calls().threadNameSet(ThreadSetNameParams.builder().threadId(id).name(name).build());
    }

    /** Archives the thread, then lets go of it (codex unloads an archived thread). */
    public void archive() {
        context.waits().call(archiveCall(), "thread/archive");
        context.held().release(id, "was archived");
    }

    /** {@return {@link #archive} without blocking} */
    public CompletableFuture<Void> archiveAsync() {
        return archiveCall().thenApply(r -> {
            context.held().release(id, "was archived");
            return null;
        });
    }

    private CompletableFuture<?> archiveCall() {
        return context.calls().threadArchive(ThreadArchiveParams.builder().threadId(id).build());
    }

    /** Brings an archived thread back. */
    public void unarchive() {
        context.waits().call(unarchiveCall(), "thread/unarchive");
    }

    /** {@return {@link #unarchive} without blocking} */
    public CompletableFuture<Void> unarchiveAsync() {
        return unarchiveCall().thenApply(r -> null);
    }

    private CompletableFuture<?> unarchiveCall() {
        return context.calls().threadUnarchive(ThreadUnarchiveParams.builder().threadId(id).build());
    }

    /** {@return the thread after its history was rolled back to just before {@code turnId}} */
    public ThreadInfo revertTo(String turnId) {
        return remember(context.waits().call(revertCall(turnId), "thread/revert").thread());
    }

    /** {@return {@link #revertTo} without blocking} */
    public CompletableFuture<ThreadInfo> revertToAsync(String turnId) {
        return revertCall(turnId).thenApply(r -> remember(r.thread()));
    }

    private CompletableFuture<ThreadRevertResponse> revertCall(String turnId) {
        Objects.requireNonNull(turnId, "turnId");
        return context.calls().threadRevert(ThreadRevertParams.builder().threadId(id).beforeTurnId(turnId)
                .build());
    }

    /** Starts compacting the thread's history. */
    public void compact() {
        context.waits().call(compactCall(), "thread/compact/start");
    }

    /** {@return {@link #compact} without blocking} */
    public CompletableFuture<Void> compactAsync() {
        return compactCall().thenApply(r -> null);
    }

    private CompletableFuture<?> compactCall() {
        return context.calls().threadCompactStart(ThreadCompactStartParams.builder().threadId(id).build());
    }

    /** {@return the link of a new thread with this one's history} */
    public ThreadLink fork() {
        return context.links().apply(context.waits().call(forkCall(), "thread/fork").thread());
    }

    /** {@return {@link #fork} without blocking} */
    public CompletableFuture<ThreadLink> forkAsync() {
        return forkCall().thenApply(r -> context.links().apply(r.thread()));
    }

    private CompletableFuture<dev.codexclient.protocol.ThreadForkResponse> forkCall() {
        return context.calls().threadFork(ThreadForkParams.builder().threadId(id).build());
    }

    /** Ends this connection's subscription to the thread, then lets go of it. */
    public void unsubscribe() {
        context.waits().call(unsubscribeCall(), "thread/unsubscribe");
        context.held().release(id, "was unsubscribed");
    }

    /** {@return {@link #unsubscribe} without blocking} */
    public CompletableFuture<Void> unsubscribeAsync() {
        return unsubscribeCall().thenApply(r -> {
            context.held().release(id, "was unsubscribed");
            return null;
        });
    }

    private CompletableFuture<?> unsubscribeCall() {
        return context.calls().threadUnsubscribe(ThreadUnsubscribeParams.builder().threadId(id).build());
    }

    // ------------------------------------------------------------------------------------------------ events

    /**
     * Adds a listener of the thread's events; the thread is held while it is subscribed.
     *
     * @param listener the listener
     * @return its subscription
     */
    public Subscription subscribe(Consumer<? super ServerNotification> listener) {
        return context.held().subscribe(this, listener, cause -> { });
    }

    /** {@return the thread's events, from each subscription on, as a hot publisher} */
    public Flow.Publisher<ServerNotification> publisher() {
        return context.flows().hot("thread " + id, (listener, onEnd) -> context.held().subscribe(this, listener,
                onEnd));
    }

    /** Runs {@code task} on the thread's delivery lane, behind the events queued there. */
    public void onLane(Runnable task) {
        context.callbacks().onLane(id, task);
    }

    long loadedOn() {
        return loadedOn;
    }

    void loadedOn(long generation) {
        this.loadedOn = generation;
    }

    @Override
    public String toString() {
        return "thread " + id;
    }
}
