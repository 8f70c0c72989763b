package dev.codexclient.telemetry;

import dev.codexclient.errors.CodexException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A request the client sent ended.
 *
 * @param started  the record of its start
 * @param outcome  how it ended
 * @param error    what the caller's future failed with, unless it {@link RequestOutcome#SUCCEEDED succeeded}
 * @param duration from the first attempt's send to the end
 * @param attempts how many times it was sent: more than one when the server was overloaded and the retry policy
 *                 sent it again
 */
public record RequestEnded(RequestStarted started, RequestOutcome outcome, Optional<CodexException> error,
                           Duration duration, int attempts) {
    /**
     * Checks that every member is present.
     *
     * @param started  the record of its start
     * @param outcome  how it ended
     * @param error    what the caller's future failed with, unless it {@link RequestOutcome#SUCCEEDED succeeded}
     * @param duration from the first attempt's send to the end
     * @param attempts how many times it was sent: more than one when the server was overloaded and the retry policy
     *                 sent it again
     */
    public RequestEnded {
        Objects.requireNonNull(started, "started");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(error, "error");
        Objects.requireNonNull(duration, "duration");
    }

    /** {@return the JSON-RPC method, as in {@link #started()}} */
    public String method() {
        return started.method();
    }
}
