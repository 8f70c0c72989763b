package dev.codexclient.internal.rpc;

import java.util.Objects;
import java.util.function.Consumer;

/**
 * Where the response of a call is handed over: on the delivery lane of {@code key} (a codex thread id), in wire order
 * with the notifications read before and after it, with {@code first} run there before the call's future completes.
 * So the state a response changes (a turn's start binding the turn to its id) has one owner, that lane, and whoever
 * waits for the future finds the change made.
 *
 * <p>Only a result read from the wire goes this way; a call that fails (an error response, its timeout, the end of
 * the connection) completes where the failure is learnt, and {@code first} is not run.
 *
 * @param <R>   the result type
 * @param key   the lane's key, the codex thread the call belongs to
 * @param first runs on the lane with the result, before the future completes; it must not block, and what it
 *              throws is logged and leaves the future to complete all the same
 */
public record ResponseLane<R>(String key, Consumer<? super R> first) {
    /**
     * Checks both are given.
     *
     * @param key   the lane's key
     * @param first runs with the result on the lane
     */
    public ResponseLane {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(first, "first");
    }
}
