package dev.codexclient.internal.rpc;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Optional;

/**
 * A notification as read from the wire: its method, the whole message object, and the codex thread it belongs to
 * (from {@code params.threadId} or {@code params.thread.id}), which selects its delivery lane.
 */
public record IncomingNotification(String method, ObjectNode message, Optional<String> threadId) {
}
