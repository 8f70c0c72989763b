package dev.codexclient.micrometer;

import dev.codexclient.telemetry.TurnEnded;
import dev.codexclient.telemetry.TurnStarted;
import io.micrometer.observation.Observation;
import java.util.Objects;
import java.util.Optional;

/**
 * The observation context of one turn of a codex client: its start, and once it ended, its end. A
 * {@link CodexTurnObservationConvention} reads its key values from here.
 */
public final class CodexTurnContext extends Observation.Context {
    private final TurnStarted started;
    private volatile TurnEnded ended;

    /**
     * A context for the turn {@code started} announces.
     *
     * @param started the turn's start event
     */
    public CodexTurnContext(TurnStarted started) {
        this.started = Objects.requireNonNull(started, "started");
    }

    /**
     * The turn's start: its thread and turn ids.
     *
     * @return the start event
     */
    public TurnStarted started() {
        return started;
    }

    /**
     * The turn's end, once it ended: its status, error, token usage and duration.
     *
     * @return the end event; empty while the turn runs
     */
    public Optional<TurnEnded> ended() {
        return Optional.ofNullable(ended);
    }

    void ended(TurnEnded event) {
        this.ended = Objects.requireNonNull(event, "event");
    }
}
