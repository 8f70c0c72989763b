/**
 * Transport internals (framing, process supervision, stderr draining, WebSocket plumbing). Not exported: the
 * public types in {@code dev.codexclient.transport} are the API.
 */
package dev.codexclient.internal.transport;
