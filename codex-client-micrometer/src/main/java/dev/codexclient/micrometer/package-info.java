/**
 * Metrics and tracing for codex-client with Micrometer: {@link dev.codexclient.micrometer.MicrometerTelemetryListener}
 * turns a client's events into observations and meters.
 */
package dev.codexclient.micrometer;
