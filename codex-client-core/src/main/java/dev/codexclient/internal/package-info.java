/**
 * The engine behind the API, by job: {@code rpc} (the JSON-RPC dispatcher over a transport), {@code session} (the
 * client runtime), {@code requests} (the server's requests), {@code transport} (transport implementations),
 * {@code flow}, {@code events}, {@code time}, {@code schema}, {@code json}; here, secret redaction and the client's
 * version. Not exported.
 */
package dev.codexclient.internal;
