package dev.codexclient.internal.session;

import dev.codexclient.errors.CodexProtocolException;
import dev.codexclient.internal.rpc.RpcConnection;
import dev.codexclient.protocol.TurnStartParams;
import dev.codexclient.protocol.TurnStartResponse;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The turn-start protocol, the one place it is run: takes hold of the thread, registers the turn before
 * {@code turn/start} leaves (so events that race the response are held for it), sends the request (after a restart,
 * once the thread is loaded on the new server), then claims the turn by the id the response names, or lets go of it
 * when the request fails.
 *
 * <p>A hold can meet a thread the client is letting go of (closed by the server, archived, unsubscribed): the start
 * then takes hold of it afresh, with a new state, and the turn is made for that one. The watchdog of the client's
 * default, if any, is armed once the turn is claimed.
 *
 * <p>Threading: any thread, listeners included; nothing here waits for a lane.
 */
public final class TurnStarts {
    private final HeldThreads held;
    private final TurnState.Context turns;
    private final Waits waits;
    private final ConnectionSupervisor supervisor;
    private final Calls calls;
    private final Optional<Duration> watchdog;

    /**
     * @param held       the threads held
     * @param turns      what every turn works with
     * @param waits      how a blocking start waits
     * @param supervisor where a thread is made sure to be loaded after a restart
     * @param calls      sends {@code turn/start}
     * @param watchdog   the idle time of every turn's watchdog; empty for none
     */
    TurnStarts(HeldThreads held, TurnState.Context turns, Waits waits, ConnectionSupervisor supervisor, Calls calls,
               Optional<Duration> watchdog) {
        this.held = held;
        this.turns = turns;
        this.waits = waits;
        this.supervisor = supervisor;
        this.calls = calls;
        this.watchdog = watchdog;
    }

    /**
     * Starts a turn on {@code link}'s thread and returns it once the server has accepted it, waiting at most the
     * request timeout.
     *
     * @param link   the thread
     * @param params the {@code turn/start} params, naming the thread
     * @return the running turn
     */
    public TurnState start(ThreadLink link, TurnStartParams params) {
        Starting s = begin(link, params);
        TurnStartResponse response;
        try {
            response = waits.call(s.response, "turn/start on thread " + link.id());
        } catch (RuntimeException e) {
            s.failed(e);
            throw e;
        }
        // Claimed here rather than in a dependent of the response: the blocking form needs no callback thread.
        return s.claim(response);
    }

    /**
     * {@link #start} without blocking.
     *
     * @param link   the thread
     * @param params the {@code turn/start} params, naming the thread
     * @return a future of the running turn; it fails when the server rejects the turn or the connection ends
     */
    public CompletableFuture<TurnState> startAsync(ThreadLink link, TurnStartParams params) {
        Starting s;
        try {
            s = begin(link, params);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return s.response.handle((r, e) -> {
            if (e != null) {
                Throwable cause = RpcConnection.unwrap(e);
                s.failed(cause);
                throw Waits.asCompletionException(cause);
            }
            return s.claim(r);
        });
    }

    private Starting begin(ThreadLink link, TurnStartParams params) {
        Objects.requireNonNull(params, "params");
        if (!link.id().equals(params.threadId())) {
            throw new IllegalArgumentException("TurnStartParams.threadId is " + params.threadId()
                    + ", not this thread's id " + link.id());
        }
        ThreadState state = held.hold(link);
        TurnState turn = new TurnState(turns, link.id(), state);
        // Registered before the request leaves, so events racing the response are held for this turn.
        if (!state.starting(turn)) {
            // The thread was being let go of: its next hold makes a new state, which the turn must belong to.
            held.unhold(state);
            state = held.hold(link);
            turn = new TurnState(turns, link.id(), state);
            state.starting(turn);
        }
        CompletableFuture<TurnStartResponse> response = send(link, params);
        turn.sent(response);
        return new Starting(state, turn, response);
    }

    /** {@return the id of the turn {@code response} names, or null when it names none} */
    static String turnId(TurnStartResponse response) {
        return response == null || response.turn() == null ? null : response.turn().id();
    }

    /** After a restart, a thread that was not held at the loss is not loaded on the new server yet: resume it. */
    private CompletableFuture<TurnStartResponse> send(ThreadLink link, TurnStartParams params) {
        if (!supervisor.restarts()) {
            return calls.turnStart(params);
        }
        return supervisor.ensureLoaded(link).thenCompose(v -> calls.turnStart(params));
    }

    /** A turn whose start request is on its way. */
    private final class Starting {
        final ThreadState state;
        final TurnState turn;
        final CompletableFuture<TurnStartResponse> response;

        Starting(ThreadState state, TurnState turn, CompletableFuture<TurnStartResponse> response) {
            this.state = state;
            this.turn = turn;
            this.response = response;
        }

        TurnState claim(TurnStartResponse r) {
            String turnId = turnId(r);
            if (turnId == null) {
                CodexProtocolException e = new CodexProtocolException("the turn/start response of thread "
                        + state.id + " names no turn");
                failed(e);
                throw e;
            }
            if (!state.claim(turn, turnId) && turn.boundId() == null) {
                // The thread was let go of while the request was out (closed by the server): the turn already
                // failed with the reason; it still gets its id.
                turn.bind(turnId, List.of());
            }
            watchdog.ifPresent(turn::watchdog);
            return turn;
        }

        void failed(Throwable cause) {
            state.startFailed(turn);
            turn.fail(cause);
        }
    }
}
