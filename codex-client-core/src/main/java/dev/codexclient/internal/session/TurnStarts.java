package dev.codexclient.internal.session;

import dev.codexclient.errors.CodexProtocolException;
import dev.codexclient.internal.rpc.Callbacks;
import dev.codexclient.internal.rpc.ResponseLane;
import dev.codexclient.internal.rpc.RpcConnection;
import dev.codexclient.protocol.ClientRequestMethods;
import dev.codexclient.protocol.TurnStartParams;
import dev.codexclient.protocol.TurnStartResponse;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The turn-start protocol, the one place it is run. Its state has one owner, the thread's delivery lane:
 * <ol>
 *   <li>the turn is registered with the thread's state on the lane before {@code turn/start} leaves, so every event
 *       read after the request is taken after it, and those of a turn not yet named are held;</li>
 *   <li>the request goes out (after a restart, once the thread is loaded on the new server);</li>
 *   <li>the response is handed over on the lane in its place in the wire order (the connection knows the thread of
 *       the request: {@link ResponseLane}); there the turn is bound to the id it names and takes the events held
 *       for it, before any later event;</li>
 *   <li>only then does the caller's future complete, so the turn it gets is bound.</li>
 * </ol>
 * A failed start fails the turn, which leaves the thread's state on the lane.
 *
 * <p>One start is made from the lane itself: a blocking start inside a listener of the same thread, whose lane
 * cannot hand the response over until that listener returns. That listener's task owns the lane while it waits,
 * so it registers and binds the turn itself, once the response is read: the events read meanwhile are queued
 * behind it, so they are taken after the binding, in wire order, as from the lane's own hand-over.
 *
 * <p>Threading: any thread, listeners included.
 */
public final class TurnStarts {
    private final HeldThreads held;
    private final TurnState.Context turns;
    private final Waits waits;
    private final ConnectionSupervisor supervisor;
    private final Calls calls;
    private final Callbacks callbacks;
    private final Optional<Duration> watchdog;

    /**
     * @param held       the threads held
     * @param turns      what every turn works with
     * @param waits      how a blocking start waits
     * @param supervisor where a thread is made sure to be loaded after a restart
     * @param calls      sends {@code turn/start}
     * @param callbacks  the client's lanes
     * @param watchdog   the idle time of every turn's watchdog; empty for none
     */
    TurnStarts(HeldThreads held, TurnState.Context turns, Waits waits, ConnectionSupervisor supervisor, Calls calls,
               Callbacks callbacks, Optional<Duration> watchdog) {
        this.held = held;
        this.turns = turns;
        this.waits = waits;
        this.supervisor = supervisor;
        this.calls = calls;
        this.callbacks = callbacks;
        this.watchdog = watchdog;
    }

    /**
     * Starts a turn on {@code link}'s thread: {@code join()} returns it once the server has accepted it and the turn
     * is bound, waiting at most the request timeout; {@code async()} is a future of it.
     *
     * @param link   the thread
     * @param params the {@code turn/start} params, naming the thread
     * @return the operation, which gives the running turn, bound
     */
    public Operation<TurnState> start(ThreadLink link, TurnStartParams params) {
        return new Operation<>() {
            @Override
            public TurnState join() {
                check(link, params);
                TurnState turn = new TurnState(turns, link.id());
                held.starting(link, turn);
                boolean owner = callbacks.isOnLane(link.id());
                try {
                    // On its own lane the start binds the turn itself: a hand-over queued there would wait for this
                    // very task.
                    TurnStartResponse response = waits.call(send(link, params, owner ? null : binding(link, turn)),
                            "turn/start on thread " + link.id());
                    String turnId = named(link, response);
                    if (owner) {
                        held.bind(link.id(), turn, turnId);
                    }
                } catch (RuntimeException e) {
                    turn.fail(e);
                    throw e;
                }
                return started(turn);
            }

            @Override
            public CompletableFuture<TurnState> async() {
                TurnState turn;
                CompletableFuture<TurnStartResponse> response;
                try {
                    check(link, params);
                    turn = new TurnState(turns, link.id());
                    held.starting(link, turn);
                    response = send(link, params, binding(link, turn));
                } catch (RuntimeException e) {
                    return CompletableFuture.failedFuture(e);
                }
                return response.handle((r, e) -> {
                    try {
                        if (e != null) {
                            throw Waits.asCompletionException(RpcConnection.unwrap(e));
                        }
                        named(link, r);
                        return started(turn);
                    } catch (RuntimeException failure) {
                        turn.fail(RpcConnection.unwrap(failure));
                        throw failure;
                    }
                });
            }
        };
    }

    private static void check(ThreadLink link, TurnStartParams params) {
        Objects.requireNonNull(params, "params");
        if (!link.id().equals(params.threadId())) {
            throw new IllegalArgumentException("TurnStartParams.threadId is " + params.threadId()
                    + ", not this thread's id " + link.id());
        }
    }

    /** Binds the turn to the id its response names, on the thread's lane, before the response's future completes. */
    private ResponseLane<TurnStartResponse> binding(ThreadLink link, TurnState turn) {
        return new ResponseLane<>(link.id(), r -> {
            String turnId = turnId(r);
            if (turnId != null) {
                held.bind(link.id(), turn, turnId);
            }
        });
    }

    /** {@return the id the response names} @throws CodexProtocolException when it names none */
    private static String named(ThreadLink link, TurnStartResponse response) {
        String turnId = turnId(response);
        if (turnId == null) {
            throw new CodexProtocolException("the turn/start response of thread " + link.id() + " names no turn");
        }
        return turnId;
    }

    /** The turn is bound: its watchdog, when the client has one for every turn, starts now. */
    private TurnState started(TurnState turn) {
        watchdog.ifPresent(turn::watchdog);
        return turn;
    }

    /** {@return the id of the turn {@code response} names, or null when it names none} */
    static String turnId(TurnStartResponse response) {
        return response == null || response.turn() == null ? null : response.turn().id();
    }

    /** After a restart, a thread that was not held at the loss is not loaded on the new server yet: resume it. */
    private CompletableFuture<TurnStartResponse> send(ThreadLink link, TurnStartParams params,
                                                      ResponseLane<TurnStartResponse> lane) {
        if (!supervisor.restarts()) {
            return turnStart(params, lane);
        }
        return supervisor.ensureLoaded(link).thenCompose(v -> turnStart(params, lane));
    }

    private CompletableFuture<TurnStartResponse> turnStart(TurnStartParams params,
                                                           ResponseLane<TurnStartResponse> lane) {
        return lane == null ? calls.turnStart(params) : calls.callOnLane(ClientRequestMethods.TURN_START, params, lane);
    }
}
