/**
 * The server's requests: routing each to the user's handler, policy or the client's default
 * ({@link dev.codexclient.internal.requests.ServerRequestRouter}), which returns what it decided; carrying their
 * handling over a restart; running synchronous policies; reporting them as telemetry. Not exported.
 */
package dev.codexclient.internal.requests;
