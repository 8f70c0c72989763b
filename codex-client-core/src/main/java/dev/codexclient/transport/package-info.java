/**
 * Moving JSON messages between the client and a codex app-server: the {@link dev.codexclient.transport.Transport}
 * SPI and its implementations for a child process ({@link dev.codexclient.transport.StdioTransport}), a WebSocket
 * ({@link dev.codexclient.transport.WebSocketTransport}) and memory
 * ({@link dev.codexclient.transport.InMemoryTransport}).
 */
package dev.codexclient.transport;
