package dev.codexclient.micrometer;

import dev.codexclient.telemetry.RequestEnded;
import io.micrometer.common.KeyValues;
import java.util.Locale;

/**
 * The default names of request observations: {@value #NAME}, with the method and the outcome as low-cardinality
 * key values (tags of the timer a meter handler makes), and the request id and the number of attempts as
 * high-cardinality ones (span attributes only).
 */
public class DefaultCodexRequestObservationConvention implements CodexRequestObservationConvention {
    /** The observation's name, and so the timer's. */
    public static final String NAME = "codex.client.requests";
    /** The JSON-RPC method, e.g. {@code turn/start}. */
    public static final String METHOD = "codex.method";
    /**
     * How the request ended: {@code succeeded}, {@code rpc_error}, {@code timed_out}, {@code cancelled},
     * {@code connection_lost}, {@code client_error}; {@code unknown} while it is in flight.
     */
    public static final String OUTCOME = "codex.outcome";
    /** The JSON-RPC id of the request's first attempt (high cardinality). */
    public static final String REQUEST_ID = "codex.request.id";
    /** How many times the request was sent (high cardinality). */
    public static final String ATTEMPTS = "codex.request.attempts";

    /** The shared instance the listener uses unless told otherwise. */
    public static final DefaultCodexRequestObservationConvention INSTANCE =
            new DefaultCodexRequestObservationConvention();

    /** A convention with the default names; extend it to change some. */
    public DefaultCodexRequestObservationConvention() {
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
     * The method: the name a tracer gives the span.
     *
     * @param context the request's context
     * @return the JSON-RPC method
     */
    @Override
    public String getContextualName(CodexRequestContext context) {
        return context.started().method();
    }

    /**
     * The method and the outcome.
     *
     * @param context the request's context
     * @return the low-cardinality key values
     */
    @Override
    public KeyValues getLowCardinalityKeyValues(CodexRequestContext context) {
        String outcome = context.ended().map(e -> e.outcome().name().toLowerCase(Locale.ROOT)).orElse("unknown");
        return KeyValues.of(METHOD, context.started().method(), OUTCOME, outcome);
    }

    /**
     * The request id, and once the request ended, its number of attempts.
     *
     * @param context the request's context
     * @return the high-cardinality key values
     */
    @Override
    public KeyValues getHighCardinalityKeyValues(CodexRequestContext context) {
        KeyValues values = KeyValues.of(REQUEST_ID, context.started().requestId());
        return context.ended().map(RequestEnded::attempts)
                .map(a -> values.and(ATTEMPTS, Integer.toString(a))).orElse(values);
    }
}
