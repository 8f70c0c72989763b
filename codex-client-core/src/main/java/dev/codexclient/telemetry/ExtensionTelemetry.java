package dev.codexclient.telemetry;

/**
 * Telemetry an integration built on the client publishes through the client's own listener, with
 * {@link dev.codexclient.Codex#publishTelemetry}: one listener sees the client's records and the
 * integration's, in the order they happened, on the same thread rules. Integrations define their records as types
 * implementing this interface (for instance {@code codex-client-agent}'s run records); a listener reacts to the
 * ones it knows in {@link CodexTelemetryListener#extensionTelemetry(ExtensionTelemetry)} and ignores the rest.
 *
 * <p>Core knows no integration: this interface is the whole contract, so an integration adds records without core
 * depending on it. Like the client's records, an integration's should carry no secrets, prompts or item text.
 */
public interface ExtensionTelemetry {
    /**
     * Which integration published the record, e.g. {@code "agent"}: lets a listener (or a log) sort records
     * without knowing their types.
     *
     * @return a short, stable name
     */
    String source();
}
