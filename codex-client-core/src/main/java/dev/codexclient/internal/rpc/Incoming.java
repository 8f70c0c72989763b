package dev.codexclient.internal.rpc;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.protocol.RequestId;
import java.util.Optional;

/** One message from the peer as a {@link WireCodec} read it: what the connection routes. */
public sealed interface Incoming {

    /**
     * A notification.
     *
     * @param resolves for {@code serverRequest/resolved}: the server request it withdraws
     */
    record Notification(IncomingNotification notification, Optional<RequestId> resolves) implements Incoming {
    }

    /** A request from the server. */
    record Request(IncomingRequest request) implements Incoming {
    }

    /** A result, bound into the type {@link ResultTypes#resultTypeOf} gave for its id. */
    record Result(RequestId id, Object value) implements Incoming {
    }

    /** A result that does not decode into what its call expects. */
    record UndecodableResult(RequestId id, String resultText, Throwable cause) implements Incoming {
    }

    /** An error response; {@code error} is the whole {@code error} member. */
    record Error(RequestId id, JsonNode error) implements Incoming {
    }

    /** A response for an id no call waits under (timed out, cancelled, never sent, or not an id at all). */
    record Unmatched(String id) implements Incoming {
    }

    /**
     * A message the connection skips.
     *
     * @param kind what is wrong, in the plural, for rate-limited logging ("lines that are not JSON")
     */
    record Malformed(String kind) implements Incoming {
    }
}
