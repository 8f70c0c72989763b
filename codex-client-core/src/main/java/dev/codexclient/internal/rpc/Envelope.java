package dev.codexclient.internal.rpc;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.protocol.RequestId;
import java.io.IOException;
import java.util.Optional;

/**
 * What the reader thread needs to route a message, found by one streaming pass over its bytes without building a
 * tree: the method, whether it carries an id, and for notifications the thread, turn and (for
 * {@code serverRequest/resolved}) request they refer to. The pass reads every token, so malformed JSON is still
 * rejected here.
 *
 * <p>Scanned with a {@link ResultReader}, the pass also collects what a response needs ({@link #response()}), so a
 * response is parsed once: its {@code result} is handed to the reader in place, which can bind it straight into
 * the type its call expects.
 *
 * @param response the response members; only from {@link #scan(ObjectMapper, byte[], ResultReader)}, and only
 *                 when the message has a {@code result} or an {@code error} member, else null
 */
record Envelope(String method, boolean methodIsText, boolean hasId, Optional<String> threadId,
                Optional<String> turnId, Optional<RequestId> requestId, Response response) {

    /**
     * The members of a message that has a {@code result} or an {@code error}; the last of each wins, as in a tree.
     *
     * @param id the {@code id} member as a tree (a {@code NullNode} for JSON null), or null when there is none
     * @param hasResult whether there is a {@code result} member
     * @param result what the {@link ResultReader} returned for the last {@code result} member
     * @param error the {@code error} member as a tree, or null when there is none
     */
    record Response(JsonNode id, boolean hasResult, Object result, JsonNode error) {
    }

    /** Reads the {@code result} member of a message where it stands. */
    @FunctionalInterface
    interface ResultReader {
        /**
         * What {@link #read} returns when it could not read the value (it does not bind into what is expected):
         * the parser's position is then unknown, so the scan stops and returns {@link #ABANDONED}.
         */
        Object ABANDON = new Object();

        /**
         * Reads (or skips) the value at the parser's current token, which starts it, and leaves the parser on the
         * value's last token or with no current token (as Jackson's {@code readValue} does); or returns
         * {@link #ABANDON}.
         *
         * @param id the {@code id} member read so far, or null when none came before the result
         */
        Object read(JsonNode id, JsonParser parser) throws IOException;
    }

    /** The scan stopped because its {@link ResultReader} abandoned the result: read the line another way. */
    static final Envelope ABANDONED = new Envelope(null, false, false, Optional.empty(), Optional.empty(),
            Optional.empty(), null);

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
        return scan(factory, null, line, null);
    }

    /**
     * Scans one message and collects its response members, handing {@code result} to {@code results}.
     *
     * @return the envelope, {@link #ABANDONED} when {@code results} abandoned the result, or {@code null} when the
     *         line is JSON but not an object
     * @throws IOException when the line is not JSON
     */
    static Envelope scan(ObjectMapper mapper, byte[] line, ResultReader results) throws IOException {
        return scan(mapper.getFactory(), mapper, line, results);
    }

    private static Envelope scan(JsonFactory factory, ObjectMapper mapper, byte[] line, ResultReader results)
            throws IOException {
        try (JsonParser p = factory.createParser(line)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                p.skipChildren();
                return null;
            }
            String method = null;
            boolean methodIsText = false;
            boolean hasId = false;
            Params params = null;
            JsonNode id = null;
            boolean hasResult = false;
            Object result = null;
            boolean hasError = false;
            JsonNode error = null;
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
                        if (results != null) {
                            id = idNode(mapper, p, value);
                        } else {
                            p.skipChildren();
                        }
                    }
                    case "params" -> params = value == JsonToken.START_OBJECT ? Params.scan(p) : skip(p);
                    case "result" -> {
                        if (results != null) {
                            hasResult = true;
                            result = results.read(id, p);
                            if (result == ResultReader.ABANDON) {
                                return ABANDONED;
                            }
                        } else {
                            p.skipChildren();
                        }
                    }
                    case "error" -> {
                        if (results != null) {
                            hasError = true;
                            error = mapper.readTree(p);
                        } else {
                            p.skipChildren();
                        }
                    }
                    default -> p.skipChildren();
                }
            }
            if (p.currentToken() != JsonToken.END_OBJECT) {
                // The parser itself rejects an object that is not closed: only a result reader that left the parser
                // inside its value can end the loop anywhere else.
                throw new JsonParseException(p, "the message object is not closed");
            }
            if (params == null) {
                params = Params.NONE;
            }
            return new Envelope(method, methodIsText, hasId, params.threadId(), params.turnId(),
                    params.requestId(), hasResult || hasError ? new Response(id, hasResult, result, error) : null);
        }
    }

    /** The id as a tree would hold it: built directly for the usual number or string, read as a tree otherwise. */
    private static JsonNode idNode(ObjectMapper mapper, JsonParser p, JsonToken value) throws IOException {
        if (value == JsonToken.VALUE_NUMBER_INT && p.getNumberType() == JsonParser.NumberType.INT) {
            return mapper.getNodeFactory().numberNode(p.getIntValue());
        }
        if (value == JsonToken.VALUE_NUMBER_INT && p.getNumberType() == JsonParser.NumberType.LONG) {
            return mapper.getNodeFactory().numberNode(p.getLongValue());
        }
        if (value == JsonToken.VALUE_STRING) {
            return mapper.getNodeFactory().textNode(p.getText());
        }
        return mapper.readTree(p);
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
