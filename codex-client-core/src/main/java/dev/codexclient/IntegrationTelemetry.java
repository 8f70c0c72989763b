package dev.codexclient;

import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.telemetry.ExtensionTelemetry;
import java.util.Objects;

/**
 * For integrations built on the client (the agent runner, a framework bridge): publishes their own telemetry
 * through the client's {@link CodexClientBuilder#telemetryListener telemetry listener} (or a pool's), so that one
 * listener sees the client's records and the integration's in the order they happened. Application code has no use
 * for it; it lives here rather than on {@link CodexClient} so that the client's face stays what an application calls.
 *
 * <pre>{@code
 * IntegrationTelemetry.publish(codex, new MyRunStarted(runId));   // MyRunStarted implements ExtensionTelemetry
 * }</pre>
 */
public final class IntegrationTelemetry {
    private IntegrationTelemetry() {
    }

    /**
     * Publishes {@code telemetry} after the records the client queued before it, on the same thread rules (see
     * {@link CodexTelemetryListener}). Does nothing when the client has no listener. Never blocks; works on a closed
     * client too.
     *
     * @param client    the client whose listener gets it
     * @param telemetry the integration's record
     */
    public static void publish(CodexClient client, ExtensionTelemetry telemetry) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(telemetry, "telemetry");
        client.runtime().publish(telemetry);
    }

    /**
     * Publishes {@code telemetry} through the telemetry listener of {@code codex}, whatever it is: a client's as
     * {@link #publish(CodexClient, ExtensionTelemetry)} does; a pool's own listener (the one given to its builder),
     * and any other {@code Codex} that is a {@link Target}. A {@code Codex} that is neither has no listener to give it
     * to: the record is dropped. Never blocks.
     *
     * @param codex     the client or pool whose listener gets it
     * @param telemetry the integration's record
     */
    public static void publish(Codex codex, ExtensionTelemetry telemetry) {
        Objects.requireNonNull(codex, "codex");
        Objects.requireNonNull(telemetry, "telemetry");
        if (codex instanceof CodexClient client) {
            client.runtime().publish(telemetry);
        } else if (codex instanceof Target target) {
            target.publishTelemetry(telemetry);
        }
    }

    /**
     * A {@link Codex} that is not a client and has a telemetry listener of its own, such as a pool: integrations reach
     * it through {@link #publish(Codex, ExtensionTelemetry)}, applications have no use for it. A {@code Codex} of an
     * application's own (a decorator) implements it to pass the records on.
     */
    public interface Target {
        /**
         * Hands {@code telemetry} to this {@code Codex}'s telemetry listener, after what it reported before, on its
         * listener's thread rules. Never blocks; a listener that throws is logged.
         *
         * @param telemetry the integration's record
         */
        void publishTelemetry(ExtensionTelemetry telemetry);
    }
}
