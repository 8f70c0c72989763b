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
import dev.codexclient.protocol.ThreadRevertParams;
import dev.codexclient.protocol.ThreadSetNameParams;
import dev.codexclient.protocol.ThreadUnarchiveParams;
import dev.codexclient.protocol.ThreadUnsubscribeParams;
import dev.codexclient.protocol.TurnStartParams;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One codex thread as the runtime knows it, and everything its public handle does: its id, the server's last
 * description of it given to the handle, the connection (by generation) it is known to be loaded on, and the
 * thread's calls, turns and listeners. The public handle is a view of it: each of the handle's methods is one call
 * here. Every handle of a thread wraps the same link while the runtime holds the thread; the link knows no handle.
 *
 * <p>Asynchronous only: each operation is an {@link Operation}, whose {@code join()} is the handle's blocking form
 * (it finishes on the calling thread: no callback thread) and whose {@code async()} its {@code …Async} twin.
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
     * {@return whether {@code other} is the link of the same thread of the same client} Links of a thread the client
     * does not hold are made anew for each handle; handles compare their links with this.
     */
    public boolean sameThread(ThreadLink other) {
        return other != null && other.context == context && other.id.equals(id);
    }

    /** {@return the mapper of the user's types, for a turn's structured output} */
    public ObjectMapper userMapper() {
        return context.userMapper();
    }

    // ------------------------------------------------------------------------------------------------ turns

    /**
     * Starts a turn: the server accepts it, and its thread's lane binds it (see {@link TurnStarts}).
     *
     * @param params the {@code turn/start} params, naming this thread
     * @return the operation, which gives the running turn
     */
    public Operation<TurnState> startTurn(TurnStartParams params) {
        return context.turns().start(this, params);
    }

    // ------------------------------------------------------------------------------------------------ calls

    /** {@return reading the thread as the server stores it now, with its turns; remembered as {@link #info()}} */
    public Operation<ThreadInfo> read() {
        return call("thread/read", () -> context.calls().threadRead(ThreadReadParams.builder().threadId(id)
                .includeTurns(true).build()), r -> remember(r.thread()));
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

    /** {@return setting the thread's name} */
    public Operation<Void> setName(String name) {
        return call("thread/name/set", () -> context.calls().threadNameSet(ThreadSetNameParams.builder()
                .threadId(id).name(name).build()), r -> null);
    }

    /** {@return archiving the thread, then letting go of it (codex unloads an archived thread)} */
    public Operation<Void> archive() {
        return call("thread/archive", () -> context.calls().threadArchive(ThreadArchiveParams.builder()
                .threadId(id).build()), r -> {
                    context.held().release(id, "was archived");
                    return null;
                });
    }

    /** {@return bringing an archived thread back} */
    public Operation<Void> unarchive() {
        return call("thread/unarchive", () -> context.calls().threadUnarchive(ThreadUnarchiveParams.builder()
                .threadId(id).build()), r -> null);
    }

    /** {@return rolling the history back to just before {@code turnId}; the thread after it is remembered} */
    public Operation<ThreadInfo> revertTo(String turnId) {
        Objects.requireNonNull(turnId, "turnId");
        return call("thread/revert", () -> context.calls().threadRevert(ThreadRevertParams.builder().threadId(id)
                .beforeTurnId(turnId).build()), r -> remember(r.thread()));
    }

    /** {@return starting to compact the thread's history} */
    public Operation<Void> compact() {
        return call("thread/compact/start", () -> context.calls().threadCompactStart(
                ThreadCompactStartParams.builder().threadId(id).build()), r -> null);
    }

    /** {@return forking the thread: the link of a new thread with this one's history} */
    public Operation<ThreadLink> fork() {
        return call("thread/fork", () -> context.calls().threadFork(ThreadForkParams.builder().threadId(id)
                .build()), r -> context.links().apply(r.thread()));
    }

    /** {@return ending this connection's subscription to the thread, then letting go of it} */
    public Operation<Void> unsubscribe() {
        return call("thread/unsubscribe", () -> context.calls().threadUnsubscribe(ThreadUnsubscribeParams.builder()
                .threadId(id).build()), r -> {
                    context.held().release(id, "was unsubscribed");
                    return null;
                });
    }

    private <R, T> Operation<T> call(String method, Supplier<CompletableFuture<R>> call,
                                     Function<? super R, ? extends T> then) {
        return Operation.of(context.waits(), method, call, then);
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
