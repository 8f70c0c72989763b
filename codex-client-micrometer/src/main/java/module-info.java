/**
 * Metrics and tracing for codex-client with Micrometer: a {@link dev.codexclient.telemetry.CodexTelemetryListener} that
 * turns a client's requests and turns into observations, and counts tokens, approvals and server requests.
 */
module dev.codexclient.micrometer {
    requires transitive dev.codexclient.core;
    requires transitive micrometer.observation;
    requires transitive micrometer.commons;
    // Optional: only a listener given a MeterRegistry uses it.
    requires static micrometer.core;

    exports dev.codexclient.micrometer;
}
