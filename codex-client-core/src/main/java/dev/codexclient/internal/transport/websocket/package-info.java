/**
 * A small RFC 6455 client for byte channels the JDK's HTTP client cannot use (a Unix domain socket): the opening
 * handshake, frame parsing and message assembly, masked frame writing, and the connection that ties them to one
 * reader thread. Not exported.
 */
package dev.codexclient.internal.transport.websocket;
