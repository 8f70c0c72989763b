/**
 * Metrics and tracing for codex-client with Micrometer: {@link dev.codexclient.micrometer.MicrometerEventListener}
 * turns a client's events into observations and meters.
 */
package dev.codexclient.micrometer;
