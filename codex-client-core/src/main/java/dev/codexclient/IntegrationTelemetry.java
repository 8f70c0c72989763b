package dev.codexclient;

import dev.codexclient.telemetry.ExtensionTelemetry;
import java.util.Objects;

/**
 * The former place of {@link Codex#publishTelemetry(ExtensionTelemetry)}, which serves a pool as well as a client.
 *
 * @deprecated call {@link Codex#publishTelemetry(ExtensionTelemetry) codex.publishTelemetry(record)}; this class
 *             goes with the next release
 */
@Deprecated(since = "0.1.0", forRemoval = true)
public final class IntegrationTelemetry {
    private IntegrationTelemetry() {
    }

    /**
     * Publishes {@code telemetry} to the client's telemetry listener.
     *
     * @param client    the client whose listener gets it
     * @param telemetry the integration's record
     * @deprecated call {@link Codex#publishTelemetry(ExtensionTelemetry) client.publishTelemetry(telemetry)}
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public static void publish(CodexClient client, ExtensionTelemetry telemetry) {
        Objects.requireNonNull(client, "client");
        client.publishTelemetry(telemetry);
    }
}
