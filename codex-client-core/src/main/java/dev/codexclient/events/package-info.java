/**
 * The event-listener SPI: what a client tells a {@link dev.codexclient.events.CodexEventListener} about its
 * connection, its requests, the server's requests, its turns and its recovery. Metrics, tracing and audit
 * integrations (such as {@code codex-client-micrometer}) build on it; the events carry no secrets.
 */
package dev.codexclient.events;
