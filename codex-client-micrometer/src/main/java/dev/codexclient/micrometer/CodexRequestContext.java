package dev.codexclient.micrometer;

import dev.codexclient.telemetry.RequestEnded;
import dev.codexclient.telemetry.RequestStarted;
import io.micrometer.observation.Observation;
import java.util.Objects;
import java.util.Optional;

/**
 * The observation context of one request a codex client sent: its start, and once it ended, its end. A
 * {@link CodexRequestObservationConvention} reads its key values from here.
 */
public final class CodexRequestContext extends Observation.Context {
    private final RequestStarted started;
    private volatile RequestEnded ended;

    /**
     * A context for the request {@code started} announces.
     *
     * @param started the request's start event
     */
    public CodexRequestContext(RequestStarted started) {
        this.started = Objects.requireNonNull(started, "started");
    }

    /**
     * The request's start: its method and id.
     *
     * @return the start event
     */
    public RequestStarted started() {
        return started;
    }

    /**
     * The request's end, once it ended: its outcome, error, duration and attempts.
     *
     * @return the end event; empty while the request is in flight
     */
    public Optional<RequestEnded> ended() {
        return Optional.ofNullable(ended);
    }

    void ended(RequestEnded event) {
        this.ended = Objects.requireNonNull(event, "event");
    }
}
