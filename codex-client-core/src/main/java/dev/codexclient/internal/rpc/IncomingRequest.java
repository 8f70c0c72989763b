package dev.codexclient.internal.rpc;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.protocol.RequestId;

/** A server-initiated request as read from the wire: its id (number or string), method and whole message. */
public record IncomingRequest(RequestId id, String method, ObjectNode message) {
}
