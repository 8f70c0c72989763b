package dev.codexclient;

import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.telemetry.ExtensionTelemetry;
import java.util.Objects;

/**
 * For integrations built on the client (the agent runner, a framework bridge): publishes their own telemetry
 * through the client's {@link CodexClientBuilder#telemetryListener telemetry listener}, so that one listener sees the
 * client's records and the integration's in the order they happened. Application code has no use for it; it lives
 * here rather than on {@link CodexClient} so that the client's face stays what an application calls.
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
}
