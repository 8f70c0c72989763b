package dev.codexclient.internal.rpc;

import dev.codexclient.protocol.ServerNotification;
import java.util.Optional;

/**
 * A notification as read from the wire: its typed value, the size of the line it came in, and the codex thread
 * (which selects its delivery lane) and turn it belongs to, as the notification's own {@code threadId()} and
 * {@code turnId()} give them.
 *
 * @param size the length of the message as received, in bytes: what holding it back counts against the client's
 *             bounds (the line itself is not kept once it is decoded)
 * @param threadId the thread it belongs to, when it names one
 * @param turnId the turn it belongs to, when it names one
 * @param notification the typed notification; {@link ServerNotification.Unrecognized} for a method this version does
 *                     not know, or params that do not match the schema
 */
public record IncomingNotification(int size, Optional<String> threadId, Optional<String> turnId,
                                   ServerNotification notification) {

    /** {@return the method as read} */
    public String method() {
        return notification.method();
    }

    @Override
    public String toString() {
        return "IncomingNotification[" + method() + ", thread " + threadId.orElse("-") + "]";
    }
}
