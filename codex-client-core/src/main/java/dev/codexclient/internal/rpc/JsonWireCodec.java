package dev.codexclient.internal.rpc;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.internal.decode.NotificationDecoder;
import dev.codexclient.protocol.RequestId;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Optional;

/**
 * The JSON codec of the app-server protocol (JSON-RPC 2.0 without the {@code "jsonrpc"} member).
 *
 * <p>Reading a line takes the first of three routes that is sure of it:
 * <ol>
 *   <li>a notification of the schema, method first (everything codex sends in a stream): decoded in one pass into
 *       its typed variant, with the thread and turn it routes by ({@link NotificationDecoder#decodeLine});</li>
 *   <li>anything else: a streaming scan of the envelope ({@link Envelope}) that routes notifications by their
 *       thread and turn and binds a response's {@code result} into the type its call expects as it reads it,
 *       when the {@code id} comes first (codex always writes it first);</li>
 *   <li>server requests, and responses the scan could not bind: a tree of the line.</li>
 * </ol>
 * The routes give the same messages; they differ in cost. A decoder generated from the schema can replace all three
 * behind {@link WireCodec}.
 */
public final class JsonWireCodec implements WireCodec {
    private static final String RESOLVED = "serverRequest/resolved";

    private final ObjectMapper mapper;
    private final NotificationDecoder notifications;

    /**
     * @param notifications decodes notifications of the schema in one pass; null to leave every notification to
     *                      the scan (whose notifications the client layer decodes on their lane)
     */
    public JsonWireCodec(ObjectMapper mapper, NotificationDecoder notifications) {
        this.mapper = mapper;
        this.notifications = notifications;
    }

    // ------------------------------------------------------------------------------------------------ decoding

    @Override
    public Incoming decode(byte[] line, ResultTypes results) {
        if (notifications != null) {
            NotificationDecoder.Decoded d = notifications.decodeLine(line);
            if (d != null) {
                return new Incoming.Notification(new IncomingNotification(d.method(), line, d.threadId(),
                        d.turnId(), mapper, d.notification()), Optional.empty());
            }
        }
        Envelope envelope;
        try {
            envelope = Envelope.scan(mapper, line, (id, parser) -> readResult(id, parser, results));
            if (envelope == Envelope.ABANDONED) {
                // The result does not bind into what its call expects: scan again without binding, and let the tree
                // route report the result that is wrong.
                envelope = Envelope.scan(mapper.getFactory(), line);
                if (envelope != null && envelope.isNotification()) {
                    return notification(envelope, line);
                }
                return fromTree(line, results);
            }
        } catch (IOException notJson) {
            return new Incoming.Malformed("lines that are not JSON");
        }
        if (envelope == null) {
            return new Incoming.Malformed("messages that are not JSON objects");
        }
        if (envelope.isNotification()) {
            return notification(envelope, line);
        }
        if (envelope.methodIsText()) {
            // A server request: its handler gets the whole message as a tree.
            return fromTree(line, results);
        }
        Envelope.Response response = envelope.response();
        if (response == null || response.id() == null) {
            return new Incoming.Malformed("messages of no known kind");
        }
        Optional<RequestId> id = toRequestId(response.id());
        if (id.isEmpty()) {
            return new Incoming.Unmatched(String.valueOf(response.id()));
        }
        if (isError(response.error())) {
            return new Incoming.Error(id.get(), response.error());
        }
        Class<?> type = results.resultTypeOf(id.get());
        if (type == null) {
            return new Incoming.Unmatched(id.get().toString());
        }
        if (response.result() instanceof Bound bound && bound.id().equals(id.get())) {
            return new Incoming.Result(id.get(), bound.value());
        }
        if (!response.hasResult()) {
            return bindTree(id.get(), type, null);
        }
        // Not read for this id (it came before the id, or another id followed it): read it from a tree.
        JsonNode message;
        try {
            message = mapper.readTree(line);
        } catch (IOException e) {
            // The scan read every token, so this takes a parser limit only tree building hits.
            return new Incoming.UndecodableResult(id.get(), "(the response could not be read)", e);
        }
        return bindTree(id.get(), type, message.get("result"));
    }

    private Incoming notification(Envelope envelope, byte[] line) {
        IncomingNotification n = new IncomingNotification(envelope.method(), line, envelope.threadId(),
                envelope.turnId(), mapper);
        return new Incoming.Notification(n, RESOLVED.equals(envelope.method()) ? envelope.requestId()
                : Optional.empty());
    }

    /** A result bound during the scan, for the call pending under {@code id}. */
    private record Bound(RequestId id, Object value) {
    }

    /**
     * Reads a response's {@code result} during the scan. When the {@code id} came first and names a pending call,
     * the value is bound straight into that call's result type, so a response is parsed once; otherwise it is
     * skipped, and read from a tree if it turns out to be needed.
     */
    private Object readResult(JsonNode idNode, JsonParser parser, ResultTypes results) throws IOException {
        Optional<RequestId> id = idNode == null ? Optional.empty() : toRequestId(idNode);
        Class<?> type = id.isEmpty() ? null : results.resultTypeOf(id.get());
        if (type == null) {
            parser.skipChildren();
            return null;
        }
        try {
            return new Bound(id.get(), type.cast(decodeResult(type, parser)));
        } catch (IOException | RuntimeException doesNotBind) {
            return Envelope.ResultReader.ABANDON;
        }
    }

    /** Reads a line that is not a notification from its tree: server requests, and responses out of the usual. */
    private Incoming fromTree(byte[] line, ResultTypes results) {
        JsonNode node;
        try {
            node = mapper.readTree(line);
        } catch (IOException e) {
            return new Incoming.Malformed("lines that are not JSON");
        }
        if (!(node instanceof ObjectNode message)) {
            return new Incoming.Malformed("messages that are not JSON objects");
        }
        JsonNode method = message.get("method");
        JsonNode idNode = message.get("id");
        if (method != null && method.isTextual()) {
            // Notifications took the scan route: this is a server request.
            Optional<RequestId> id = toRequestId(idNode);
            if (id.isEmpty()) {
                return new Incoming.Malformed("server requests with invalid ids");
            }
            return new Incoming.Request(new IncomingRequest(id.get(), method.textValue(), message));
        }
        if (idNode == null || !(message.has("result") || message.has("error"))) {
            return new Incoming.Malformed("messages of no known kind");
        }
        Optional<RequestId> id = toRequestId(idNode);
        if (id.isEmpty()) {
            return new Incoming.Unmatched(String.valueOf(idNode));
        }
        JsonNode error = message.get("error");
        if (isError(error)) {
            return new Incoming.Error(id.get(), error);
        }
        Class<?> type = results.resultTypeOf(id.get());
        if (type == null) {
            return new Incoming.Unmatched(id.get().toString());
        }
        return bindTree(id.get(), type, message.get("result"));
    }

    private Incoming bindTree(RequestId id, Class<?> type, JsonNode result) {
        try {
            return new Incoming.Result(id, type.cast(decodeResult(type, result)));
        } catch (IOException | RuntimeException e) {
            return new Incoming.UndecodableResult(id, String.valueOf(result), e);
        }
    }

    private static boolean isError(JsonNode error) {
        return error != null && !error.isNull();
    }

    private Object decodeResult(Class<?> type, JsonNode result) throws IOException {
        if (type == Void.class) {
            return null;
        }
        if (JsonNode.class.isAssignableFrom(type)) {
            return result == null ? mapper.nullNode() : result;
        }
        if (result == null || result.isNull()) {
            // Methods whose result is an empty object are sometimes answered with null; build the empty value.
            result = mapper.createObjectNode();
        }
        return mapper.treeToValue(result, type);
    }

    /** {@link #decodeResult(Class, JsonNode)} from the parser's current token, without a tree. */
    private Object decodeResult(Class<?> type, JsonParser parser) throws IOException {
        if (type == Void.class) {
            parser.skipChildren();
            return null;
        }
        if (JsonNode.class.isAssignableFrom(type)) {
            return mapper.readTree(parser);
        }
        if (parser.currentToken() == JsonToken.VALUE_NULL) {
            return mapper.treeToValue(mapper.createObjectNode(), type);
        }
        return mapper.readValue(parser, type);
    }

    static Optional<RequestId> toRequestId(JsonNode id) {
        if (id == null) {
            return Optional.empty();
        }
        if (id.isTextual()) {
            return Optional.of(RequestId.of(id.textValue()));
        }
        if (id.isIntegralNumber() && id.canConvertToLong()) {
            return Optional.of(RequestId.of(id.longValue()));
        }
        return Optional.empty();
    }

    // ------------------------------------------------------------------------------------------------ encoding

    @Override
    public byte[] encodeRequest(RequestId id, String method, Object params) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(128);
        try (JsonGenerator g = mapper.getFactory().createGenerator(out)) {
            g.writeStartObject();
            if (id != null) {
                g.writeFieldName("id");
                writeId(g, id);
            }
            g.writeStringField("method", method);
            if (params instanceof JsonNode tree) {
                // A tree writes itself: looking up a serializer for it would resolve its class's generic hierarchy,
                // a noticeable share of the handshake (whose params are a tree) in a fresh JVM.
                g.writeFieldName("params");
                tree.serialize(g, mapper.getSerializerProviderInstance());
            } else if (params != null) {
                g.writeFieldName("params");
                mapper.writeValue(g, params);
            }
            g.writeEndObject();
        }
        return out.toByteArray();
    }

    @Override
    public byte[] encodeResult(RequestId id, Object result) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(128);
        try (JsonGenerator g = mapper.getFactory().createGenerator(out)) {
            g.writeStartObject();
            g.writeFieldName("id");
            writeId(g, id);
            g.writeFieldName("result");
            if (result == null) {
                g.writeStartObject();
                g.writeEndObject();
            } else {
                mapper.writeValue(g, result);
            }
            g.writeEndObject();
        }
        return out.toByteArray();
    }

    @Override
    public byte[] encodeError(RequestId id, int code, String message, JsonNode data) throws IOException {
        ObjectNode reply = mapper.createObjectNode();
        reply.set("id", id instanceof RequestId.Number n ? reply.numberNode(n.value())
                : reply.textNode(((RequestId.Text) id).value()));
        ObjectNode err = reply.putObject("error");
        err.put("code", code);
        err.put("message", message);
        if (data != null) {
            err.set("data", data);
        }
        return mapper.writeValueAsBytes(reply);
    }

    private static void writeId(JsonGenerator g, RequestId id) throws IOException {
        if (id instanceof RequestId.Number n) {
            g.writeNumber(n.value());
        } else {
            g.writeString(((RequestId.Text) id).value());
        }
    }
}
