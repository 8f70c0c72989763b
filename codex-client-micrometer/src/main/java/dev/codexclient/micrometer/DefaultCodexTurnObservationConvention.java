package dev.codexclient.micrometer;

import io.micrometer.common.KeyValues;

/**
 * The default names of turn observations: {@value #NAME}, with the turn's status as a low-cardinality key value
 * (the tag of the timer a meter handler makes), and the thread and turn ids as high-cardinality ones (span
 * attributes only).
 */
public class DefaultCodexTurnObservationConvention implements CodexTurnObservationConvention {
    /** The observation's name, and so the timer's. */
    public static final String NAME = "codex.client.turns";
    /**
     * The status the turn ended with: {@code completed}, {@code interrupted}, {@code failed} (also for a turn lost
     * with its server), or one a newer server defines; {@code unknown} while it runs.
     */
    public static final String STATUS = "codex.turn.status";
    /** The thread's id (high cardinality). */
    public static final String THREAD_ID = "codex.thread.id";
    /** The turn's id (high cardinality). */
    public static final String TURN_ID = "codex.turn.id";

    /** The shared instance the listener uses unless told otherwise. */
    public static final DefaultCodexTurnObservationConvention INSTANCE = new DefaultCodexTurnObservationConvention();

    /** A convention with the default names; extend it to change some. */
    public DefaultCodexTurnObservationConvention() {
    }

    /**
     * {@value #NAME}.
     *
     * @return the observation's name
     */
    @Override
    public String getName() {
        return NAME;
    }

    /**
     * {@code codex turn}: the name a tracer gives the span.
     *
     * @param context the turn's context
     * @return the span's name
     */
    @Override
    public String getContextualName(CodexTurnContext context) {
        return "codex turn";
    }

    /**
     * The status.
     *
     * @param context the turn's context
     * @return the low-cardinality key values
     */
    @Override
    public KeyValues getLowCardinalityKeyValues(CodexTurnContext context) {
        String status = context.ended().map(e -> e.status().asString()).filter(s -> !s.isEmpty()).orElse("unknown");
        return KeyValues.of(STATUS, status);
    }

    /**
     * The thread and turn ids.
     *
     * @param context the turn's context
     * @return the high-cardinality key values
     */
    @Override
    public KeyValues getHighCardinalityKeyValues(CodexTurnContext context) {
        return KeyValues.of(THREAD_ID, context.started().threadId(), TURN_ID, context.started().turnId());
    }
}
