package dev.codexclient.micrometer;

import io.micrometer.common.KeyValues;

/**
 * The default names of turn observations, after the OpenTelemetry semantic conventions for generative AI: a turn is
 * an agent invocation, observed as {@value #NAME} (the timer a meter handler makes, in seconds) with the span name
 * {@code invoke_agent codex}. Low-cardinality key values (tags): {@value #OPERATION_NAME} {@code invoke_agent},
 * {@value #PROVIDER_NAME} {@code openai}, {@value #AGENT_NAME} {@code codex}, {@value #STATUS} (codex's own: no
 * convention covers a turn's status) and {@value #ERROR_TYPE} (the exception's class for a turn that did not
 * complete, {@code none} otherwise). High-cardinality ones (span attributes only): {@value #CONVERSATION_ID} (the
 * thread's id) and {@value #TURN_ID}.
 *
 * <p>{@code gen_ai.request.model} is not set: a turn's events do not say which model codex chose (the thread's
 * configuration does); an application that knows it adds it by extending this convention.
 */
public class DefaultCodexTurnObservationConvention implements CodexTurnObservationConvention {
    /** The observation's name, and so the timer's. */
    public static final String NAME = "gen_ai.client.operation.duration";
    /** The GenAI operation: {@code invoke_agent} for a turn. */
    public static final String OPERATION_NAME = "gen_ai.operation.name";
    /** The GenAI provider: {@code openai}. */
    public static final String PROVIDER_NAME = "gen_ai.provider.name";
    /** The agent's name: {@code codex}. */
    public static final String AGENT_NAME = "gen_ai.agent.name";
    /** Why the operation did not complete: the exception's simple class name; {@code none} when it completed. */
    public static final String ERROR_TYPE = "error.type";
    /** The thread's id, as the GenAI conversation (high cardinality). */
    public static final String CONVERSATION_ID = "gen_ai.conversation.id";
    /**
     * The status the turn ended with: {@code completed}, {@code interrupted}, {@code failed} (also for a turn lost
     * with its server), or one a newer server defines; {@code unknown} while it runs.
     */
    public static final String STATUS = "codex.turn.status";
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
     * {@code invoke_agent codex}: the name a tracer gives the span ({@code {gen_ai.operation.name} {gen_ai.agent.name}}).
     *
     * @param context the turn's context
     * @return the span's name
     */
    @Override
    public String getContextualName(CodexTurnContext context) {
        return "invoke_agent codex";
    }

    /**
     * The operation, provider and agent, the status, and the error type.
     *
     * @param context the turn's context
     * @return the low-cardinality key values
     */
    @Override
    public KeyValues getLowCardinalityKeyValues(CodexTurnContext context) {
        String status = context.ended().map(e -> e.status().asString()).filter(s -> !s.isEmpty()).orElse("unknown");
        String error = context.ended().flatMap(e -> e.error()).map(e -> e.getClass().getSimpleName()).orElse("none");
        return KeyValues.of(OPERATION_NAME, "invoke_agent", PROVIDER_NAME, "openai", AGENT_NAME, "codex",
                STATUS, status, ERROR_TYPE, error);
    }

    /**
     * The thread's id as the conversation, and the turn's id.
     *
     * @param context the turn's context
     * @return the high-cardinality key values
     */
    @Override
    public KeyValues getHighCardinalityKeyValues(CodexTurnContext context) {
        return KeyValues.of(CONVERSATION_ID, context.started().threadId(), TURN_ID, context.started().turnId());
    }
}
