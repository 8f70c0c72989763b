/**
 * The telemetry SPI: what a client tells a {@link dev.codexclient.telemetry.CodexTelemetryListener} about its
 * connection, its requests, the server's requests, its turns and its restarts, one record per thing that happened.
 * Metrics, tracing and audit integrations (such as {@code codex-client-micrometer}) build on it; the records carry
 * no secrets.
 */
package dev.codexclient.telemetry;
