package dev.codexclient.internal.rpc;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import dev.codexclient.protocol.RequestId;
import java.io.IOException;
import java.util.Optional;

/**
 * What the reader thread needs to route a message, found by one streaming pass over its bytes without building a
 * tree: the method, whether it carries an id, and for notifications the thread, turn and (for
 * {@code serverRequest/resolved}) request they refer to. The pass reads every token, so malformed JSON is still
 * rejected here.
 */
record Envelope(String method, boolean methodIsText, boolean hasId, Optional<String> threadId,
                Optional<String> turnId, Optional<RequestId> requestId) {

    /** A notification: a textual method and no (or a null) id. */
    boolean isNotification() {
        return methodIsText && !hasId;
    }

    /**
     * Scans one message.
     *
     * @return the envelope, or {@code null} when the line is JSON but not an object
     * @throws IOException when the line is not JSON
     */
    static Envelope scan(JsonFactory factory, byte[] line) throws IOException {
        try (JsonParser p = factory.createParser(line)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                p.skipChildren();
                return null;
            }
            String method = null;
            boolean methodIsText = false;
            boolean hasId = false;
            Params params = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                switch (name) {
                    case "method" -> {
                        methodIsText = value == JsonToken.VALUE_STRING;
                        method = methodIsText ? p.getText() : null;
                        p.skipChildren();
                    }
                    case "id" -> {
                        hasId = value != JsonToken.VALUE_NULL;
                        p.skipChildren();
                    }
                    case "params" -> params = value == JsonToken.START_OBJECT ? Params.scan(p) : skip(p);
                    default -> p.skipChildren();
                }
            }
            if (params == null) {
                params = Params.NONE;
            }
            return new Envelope(method, methodIsText, hasId, params.threadId(), params.turnId(),
                    params.requestId());
        }
    }

    private static Params skip(JsonParser p) throws IOException {
        p.skipChildren();
        return null;
    }

    /** The routing members of {@code params}; the same precedence as reading them from a tree. */
    private record Params(String threadIdMember, String threadObjectId, String turnIdMember, String turnObjectId,
                          RequestId requestIdMember) {
        static final Params NONE = new Params(null, null, null, null, null);

        static Params scan(JsonParser p) throws IOException {
            String threadId = null;
            String threadObjectId = null;
            String turnId = null;
            String turnObjectId = null;
            RequestId requestId = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                switch (name) {
                    case "threadId" -> threadId = value == JsonToken.VALUE_STRING ? p.getText() : null;
                    case "turnId" -> turnId = value == JsonToken.VALUE_STRING ? p.getText() : null;
                    case "thread" -> threadObjectId = value == JsonToken.START_OBJECT ? idMember(p) : null;
                    case "turn" -> turnObjectId = value == JsonToken.START_OBJECT ? idMember(p) : null;
                    case "requestId" -> requestId = requestId(p, value);
                    default -> { }
                }
                p.skipChildren();
            }
            return new Params(threadId, threadObjectId, turnId, turnObjectId, requestId);
        }

        /** Reads an object to its end, returning its textual {@code id} member. */
        private static String idMember(JsonParser p) throws IOException {
            String id = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (name.equals("id")) {
                    id = value == JsonToken.VALUE_STRING ? p.getText() : null;
                }
                p.skipChildren();
            }
            return id;
        }

        private static RequestId requestId(JsonParser p, JsonToken value) throws IOException {
            if (value == JsonToken.VALUE_STRING) {
                return RequestId.of(p.getText());
            }
            if (value == JsonToken.VALUE_NUMBER_INT) {
                try {
                    return RequestId.of(p.getLongValue());
                } catch (InputCoercionException tooLarge) {
                    return null;
                }
            }
            return null;
        }

        Optional<String> threadId() {
            return Optional.ofNullable(threadIdMember != null ? threadIdMember : threadObjectId);
        }

        Optional<String> turnId() {
            return Optional.ofNullable(turnIdMember != null ? turnIdMember : turnObjectId);
        }

        Optional<RequestId> requestId() {
            return Optional.ofNullable(requestIdMember);
        }
    }
}
