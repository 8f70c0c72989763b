package dev.codexclient.internal.rpc;

import dev.codexclient.protocol.ServerNotification;
import java.util.Optional;

/**
 * A notification as read from the wire: its typed value, the line it came in, and the codex thread (which selects
 * its delivery lane) and turn it belongs to, as the notification's own {@code threadId()} and {@code turnId()} give
 * them.
 *
 * @param method the method as read
 * @param bytes the message as received (UTF-8 JSON, no newline); shared, not copied: do not modify it
 * @param threadId the thread it belongs to, when it names one
 * @param turnId the turn it belongs to, when it names one
 * @param notification the typed notification; {@link ServerNotification.Unrecognized} for a method this version does
 *                     not know, or params that do not match the schema
 */
public record IncomingNotification(String method, byte[] bytes, Optional<String> threadId, Optional<String> turnId,
                                   ServerNotification notification) {

    @Override
    public String toString() {
        return "IncomingNotification[" + method + ", thread " + threadId.orElse("-") + "]";
    }
}
