package dev.codexclient;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.internal.rpc.RpcConnection;
import dev.codexclient.internal.rpc.IncomingNotification;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadInfo;
import dev.codexclient.protocol.ThreadArchiveParams;
import dev.codexclient.protocol.ThreadCompactStartParams;
import dev.codexclient.protocol.ThreadForkParams;
import dev.codexclient.protocol.ThreadReadParams;
import dev.codexclient.protocol.ThreadRevertParams;
import dev.codexclient.protocol.ThreadSetNameParams;
import dev.codexclient.protocol.ThreadUnarchiveParams;
import dev.codexclient.protocol.ThreadUnsubscribeParams;
import dev.codexclient.protocol.TurnStartParams;
import dev.codexclient.protocol.TurnStartResponse;
import dev.codexclient.protocol.UserInput;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A codex thread (a conversation) this client started, resumed or forked: start turns on it, read it, name,
 * archive, revert or compact it, and listen to its events.
 *
 * <pre>{@code
 * CodexThread thread = codex.startThread();
 * TurnResult r = thread.startTurn("Summarise README.md").await(Duration.ofMinutes(2));
 * }</pre>
 *
 * <p>All events of one thread are processed on one delivery lane, in wire order; that lane also routes each
 * event to its turn, including events that arrive before the {@code turn/start} response names the turn.
 */
public final class CodexThread {
    private static final Logger LOG = LoggerFactory.getLogger(CodexThread.class);
    private static final int MAX_UNCLAIMED = 10_000;

    private final CodexClient client;
    private final String id;
    private volatile ThreadInfo info;

    // Lane-confined state (see onLane).
    private final Map<String, CodexTurn> turns = new HashMap<>();
    private final Deque<CodexTurn> starting = new ArrayDeque<>();
    private final List<Object[]> unclaimed = new ArrayList<>();
    private final List<Consumer<ServerNotification>> listeners = new CopyOnWriteArrayList<>();

    CodexThread(CodexClient client, ThreadInfo info) {
        this.client = client;
        this.info = Objects.requireNonNull(info, "info");
        this.id = info.id();
    }

    /** The thread id. */
    public String id() {
        return id;
    }

    /** The thread as the server last described it to this handle (from start/resume/fork or {@link #read()}). */
    public ThreadInfo info() {
        return info;
    }

    // ------------------------------------------------------------------------------------------------ turns

    /** Starts a turn with one text input. */
    public CodexTurn startTurn(String text) {
        return startTurn(List.of(Inputs.text(text)));
    }

    /** Starts a turn with the given inputs (text, images, skills, mentions; see {@link Inputs}). */
    public CodexTurn startTurn(List<UserInput> input) {
        return startTurn(TurnStartParams.builder().threadId(id).input(List.copyOf(input)).build());
    }

    /**
     * Starts a turn with full control over its overrides (model, effort, sandbox, approval policy, output schema,
     * …). {@code params.threadId()} must be this thread's id; {@link #turnParams()} gives a builder with it set.
     */
    public CodexTurn startTurn(TurnStartParams params) {
        Objects.requireNonNull(params, "params");
        if (!id.equals(params.threadId())) {
            throw new IllegalArgumentException("TurnStartParams.threadId is " + params.threadId()
                    + ", not this thread's id " + id);
        }
        CodexTurn turn = new CodexTurn(this, client);
        // Registered before the request leaves, so events racing the response are routed to this turn.
        CompletableFuture<Void> registered = new CompletableFuture<>();
        onLane(() -> {
            starting.add(turn);
            registered.complete(null);
        });
        client.await(registered, "registering a turn of thread " + id);
        CompletableFuture<TurnStartResponse> response = client.rpc().turnStart(params);
        response.whenComplete((r, e) -> onLane(() -> {
            if (e != null) {
                starting.remove(turn);
                turn.fail(RpcConnection.unwrap(e));
                dropUnclaimedIfIdle();
                return;
            }
            claim(turn, r.turn().id());
        }));
        client.await(response, "turn/start on thread " + id);
        client.watchNewTurn(turn);
        return turn;
    }

    /** A builder for {@link #startTurn(TurnStartParams)} with this thread's id already set. */
    public TurnStartParams.Builder turnParams() {
        return TurnStartParams.builder().threadId(id);
    }

    /**
     * Starts a turn whose final message must be JSON matching the schema derived from {@code outputType} (a record,
     * typically), and parses it into that type.
     */
    public <T> StructuredTurn<T> startTurn(String text, Class<T> outputType) {
        return startTurn(turnParams().input(List.of(Inputs.text(text))), outputType);
    }

    /** Like {@link #startTurn(String, Class)}, with the other turn parameters from {@code params}. */
    public <T> StructuredTurn<T> startTurn(TurnStartParams.Builder params, Class<T> outputType) {
        Objects.requireNonNull(outputType, "outputType");
        ObjectNode schema = dev.codexclient.internal.schema.RecordSchemas.schemaOf(outputType);
        CodexTurn turn = startTurn(params.outputSchema(schema).build());
        return new StructuredTurn<>(turn, outputType, client.userMapper());
    }

    // ------------------------------------------------------------------------------------------------ thread ops

    /** Reads the thread from the server, with its turns, and refreshes {@link #info()}. */
    public ThreadInfo read() {
        ThreadInfo t = client.await(client.rpc().threadRead(ThreadReadParams.builder().threadId(id).includeTurns(true)
                .build()), "thread/read").thread();
        info = t;
        return t;
    }

    /** Sets the thread's name. */
    public void setName(String name) {
        client.await(client.rpc().threadNameSet(ThreadSetNameParams.builder().threadId(id).name(name).build()),
                "thread/name/set");
    }

    /** Archives the thread. */
    public void archive() {
        client.await(client.rpc().threadArchive(ThreadArchiveParams.builder().threadId(id).build()),
                "thread/archive");
    }

    /** Restores an archived thread. */
    public void unarchive() {
        client.await(client.rpc().threadUnarchive(ThreadUnarchiveParams.builder().threadId(id).build()),
                "thread/unarchive");
    }

    /**
     * Rolls the thread's stored history back to just before {@code turnId}: that turn and every later one are
     * dropped ({@code thread/revert}, the successor of the older {@code thread/rollback}). Local file changes the
     * dropped turns made are not undone. Refreshes {@link #info()}; its {@code turns} are empty, as codex reports.
     */
    public ThreadInfo revertTo(String turnId) {
        Objects.requireNonNull(turnId, "turnId");
        ThreadInfo t = client.await(client.rpc().threadRevert(ThreadRevertParams.builder().threadId(id)
                .beforeTurnId(turnId).build()), "thread/revert").thread();
        info = t;
        return t;
    }

    /** Starts compacting the thread's history; progress arrives as events on this thread. */
    public void compact() {
        client.await(client.rpc().threadCompactStart(ThreadCompactStartParams.builder().threadId(id).build()),
                "thread/compact/start");
    }

    /** Forks the thread into a new one with the same history. */
    public CodexThread fork() {
        return client.forkThread(ThreadForkParams.builder().threadId(id).build());
    }

    /** Stops this connection's subscription to the thread's events and forgets the handle. */
    public void unsubscribe() {
        client.await(client.rpc().threadUnsubscribe(ThreadUnsubscribeParams.builder().threadId(id).build()),
                "thread/unsubscribe");
        client.forget(this);
    }

    /** Every event of this thread, in wire order (turn events included). */
    public Subscription onEvent(Consumer<? super ServerNotification> listener) {
        Objects.requireNonNull(listener, "listener");
        Consumer<ServerNotification> l = listener::accept;
        listeners.add(l);
        return () -> listeners.remove(l);
    }

    // ------------------------------------------------------------------------------------------------ lane side

    void onLane(Runnable task) {
        client.onLane(id, task);
    }

    /** Routes one event of this thread; runs on the lane. */
    void dispatch(IncomingNotification raw, ServerNotification n) {
        for (Consumer<ServerNotification> l : listeners) {
            try {
                l.accept(n);
            } catch (RuntimeException e) {
                LOG.warn("A thread listener threw; other listeners still get the event", e);
            }
        }
        String turnId = raw.turnId().orElse(null);
        if (turnId == null) {
            return;
        }
        CodexTurn turn = turns.get(turnId);
        if (turn != null) {
            turn.accept(n);
        } else if (!starting.isEmpty()) {
            // The turn/start response has not named its turn yet: hold the event until it does.
            if (unclaimed.size() < MAX_UNCLAIMED) {
                unclaimed.add(new Object[] {turnId, n});
            }
        }
    }

    private void claim(CodexTurn turn, String turnId) {
        starting.remove(turn);
        turns.put(turnId, turn);
        turn.bind(turnId);
        Iterator<Object[]> it = unclaimed.iterator();
        while (it.hasNext()) {
            Object[] e = it.next();
            if (turnId.equals(e[0])) {
                it.remove();
                turn.accept((ServerNotification) e[1]);
            }
        }
        dropUnclaimedIfIdle();
    }

    private void dropUnclaimedIfIdle() {
        if (starting.isEmpty() && !unclaimed.isEmpty()) {
            LOG.debug("dropping {} events of thread {} for turns this client did not start", unclaimed.size(), id);
            unclaimed.clear();
        }
    }

    void turnEnded(CodexTurn turn) {
        String turnId = turn.boundId();
        if (turnId != null) {
            turns.remove(turnId, turn);
        }
    }

    /** The connection ended: fail every turn still running. */
    void failAll(Throwable cause) {
        onLane(() -> {
            for (CodexTurn t : new ArrayList<>(turns.values())) {
                t.fail(cause);
            }
            for (CodexTurn t : starting) {
                t.fail(cause);
            }
            turns.clear();
            starting.clear();
            unclaimed.clear();
        });
    }

    List<CodexTurn> activeTurns() {
        return new ArrayList<>(turns.values());
    }

    @Override
    public String toString() {
        return "CodexThread[" + id + "]";
    }
}
