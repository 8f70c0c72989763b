/**
 * Moving JSON messages between the client and a codex app-server: the {@link dev.codexclient.transport.Transport}
 * SPI and its implementations for a child process ({@link dev.codexclient.transport.StdioTransport}), a WebSocket
 * ({@link dev.codexclient.transport.WebSocketTransport}), a Unix socket such as the local daemon's
 * ({@link dev.codexclient.transport.UnixSocketTransport}) and memory
 * ({@link dev.codexclient.transport.InMemoryTransport}); bearer tokens for codex's {@code --ws-auth}
 * ({@link dev.codexclient.transport.BearerTokenProvider}, {@link dev.codexclient.transport.SignedBearerTokens}); and
 * a readiness check for WebSocket listeners ({@link dev.codexclient.transport.ReadinessProbe}).
 */
package dev.codexclient.transport;
