package dev.codexclient.internal.rpc;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.protocol.RequestId;
import dev.codexclient.protocol.ServerNotification;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JSON codec of the app-server protocol (JSON-RPC 2.0 without the {@code "jsonrpc"} member).
 *
 * <p>Every message is read by one path, in one pass over its bytes, and bound by the binders generated with the
 * protocol types; nothing here knows a protocol type's members. The first member says what the message is, in
 * the order codex writes them:
 * <ul>
 *   <li>{@code method} first: a notification. The generated {@link ServerNotification} binder reads the whole
 *       message into its typed variant, whose {@code threadId()} and {@code turnId()} give the lane it is
 *       delivered on.</li>
 *   <li>{@code id} first, then {@code result}: a response, bound straight into the type its call expects
 *       ({@link ResultTypes}); then {@code method}: a server request, whose params its handler binds.</li>
 * </ul>
 * Any other order (and anything that turns out not to be what its first member promised, such as a notification
 * with an {@code id}) is read as a tree first and then classified and bound by the same binders, from the tree's
 * tokens: the order of members changes the cost of a message, never its meaning.
 */
public final class JsonWireCodec implements WireCodec {
    private static final Logger LOG = LoggerFactory.getLogger(JsonWireCodec.class);
    private static final String RESOLVED = "serverRequest/resolved";

    private final ObjectMapper mapper;
    private final ObjectReader notifications;
    private final Map<Class<?>, ObjectReader> resultReaders = new ConcurrentHashMap<>();
    /** Methods whose notifications did not match the schema, each warned about once (bounded by the schema). */
    private final Set<String> mismatched = ConcurrentHashMap.newKeySet();

    public JsonWireCodec(ObjectMapper mapper) {
        this.mapper = mapper;
        this.notifications = mapper.readerFor(ServerNotification.class);
    }

    // ------------------------------------------------------------------------------------------------ decoding

    @Override
    public Incoming decode(byte[] line, ResultTypes results) {
        try (JsonParser p = mapper.getFactory().createParser(line)) {
            if (p.nextToken() == JsonToken.START_OBJECT && p.nextToken() == JsonToken.FIELD_NAME) {
                Incoming in = switch (p.currentName()) {
                    case "method" -> methodFirst(p, line);
                    case "id" -> idFirst(p, results);
                    default -> null;
                };
                if (in != null) {
                    return in;
                }
            }
        } catch (IOException | RuntimeException notAsWritten) {
            // Not JSON, or not what its first member promised: the tree says what it is.
        }
        return fromTree(line, results);
    }

    /** A message whose first member is {@code method}: a notification; null to read the line as a tree. */
    private Incoming methodFirst(JsonParser p, byte[] line) throws IOException {
        // The binder starts at the method's name, so the method is read once.
        ServerNotification n = notifications.readValue(p);
        if (n == null || n.method() == null
                || (n instanceof ServerNotification.Unrecognized u && u.raw().hasNonNull("id"))) {
            // Not a notification at all, or an unknown method with an id: a server request from a newer server.
            return null;
        }
        return notification(n, line.length);
    }

    /**
     * The thread id the last notification named, as one string: a stream names one thread again and again, and the
     * lanes and the client look each up in a map, which would hash a fresh string every time. Meant for the reader
     * thread; read once per use, so that a second reader (during a reconnect) can only cost a miss.
     */
    private volatile Optional<String> lastThread = Optional.empty();

    private Optional<String> sameThread(Optional<String> thread) {
        if (thread.isEmpty()) {
            return thread;
        }
        Optional<String> last = lastThread;
        if (thread.equals(last)) {
            return last;
        }
        lastThread = thread;
        return thread;
    }

    private Incoming notification(ServerNotification n, int size) {
        Optional<RequestId> resolves = Optional.empty();
        if (n instanceof ServerNotification.ServerRequestResolved r && r.params() != null) {
            resolves = Optional.ofNullable(r.params().requestId());
        } else if (n instanceof ServerNotification.Unrecognized u && RESOLVED.equals(u.method())) {
            // Params the schema does not describe still withdraw the request they name.
            resolves = toRequestId(u.raw().path("params").get("requestId"));
        }
        return new Incoming.Notification(new IncomingNotification(size, sameThread(n.threadId()),
                n.turnId(), n), resolves);
    }

    /**
     * A message whose first member is {@code id}: a response, bound as it is read, or a server request; null to read
     * the line as a tree.
     */
    private Incoming idFirst(JsonParser p, ResultTypes results) throws IOException {
        JsonToken value = p.nextToken();
        RequestId id;
        if (value == JsonToken.VALUE_STRING) {
            id = RequestId.of(p.getText());
        } else if (value == JsonToken.VALUE_NUMBER_INT && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
            id = RequestId.of(p.getLongValue());
        } else {
            return null;
        }
        if (p.nextToken() != JsonToken.FIELD_NAME) {
            return null;
        }
        String member = p.currentName();
        p.nextToken();
        if (member.equals("result")) {
            Class<?> type = results.resultTypeOf(id);
            Object bound = null;
            if (type == null) {
                p.skipChildren();
            } else {
                bound = type.cast(decodeResult(type, p));
            }
            if (!endsWithout(p, "method", "error", "result", "id")) {
                return null;
            }
            return type == null ? new Incoming.Unmatched(id.toString()) : new Incoming.Result(id, bound);
        }
        if (member.equals("method") && p.currentToken() == JsonToken.VALUE_STRING) {
            ObjectNode message = mapper.createObjectNode();
            message.set("id", idNode(id));
            message.put("method", p.getText());
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                if (name.equals("id") || name.equals("method")) {
                    return null; // a repeated member: the tree keeps the last, as JSON readers do
                }
                p.nextToken();
                message.set(name, mapper.readTree(p));
            }
            return p.currentToken() == JsonToken.END_OBJECT
                    ? new Incoming.Request(new IncomingRequest(id, message.get("method").textValue(), message))
                    : null;
        }
        return null;
    }

    /** Reads the members after a value: true when none of {@code names} is among them. */
    private static boolean endsWithout(JsonParser p, String... names) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            for (String n : names) {
                if (n.equals(name)) {
                    return false;
                }
            }
            p.nextToken();
            p.skipChildren();
        }
        return p.currentToken() == JsonToken.END_OBJECT;
    }

    /** Reads a line from its tree: members in another order than codex's, and everything that is not JSON-RPC. */
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
        boolean hasId = idNode != null && !idNode.isNull();
        if (method != null && method.isTextual()) {
            if (!hasId) {
                return notification(treeNotification(message), line.length);
            }
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
        if (error != null && !error.isNull()) {
            return new Incoming.Error(id.get(), error);
        }
        Class<?> type = results.resultTypeOf(id.get());
        if (type == null) {
            return new Incoming.Unmatched(id.get().toString());
        }
        JsonNode result = message.get("result");
        try {
            return new Incoming.Result(id.get(), type.cast(decodeResult(type, result)));
        } catch (IOException | RuntimeException e) {
            return new Incoming.UndecodableResult(id.get(), String.valueOf(result), e);
        }
    }

    /**
     * A notification from its tree, by the same binder; one whose params do not match the schema of its method is
     * kept whole as {@link ServerNotification.Unrecognized} rather than dropped.
     */
    private ServerNotification treeNotification(ObjectNode message) {
        try {
            ServerNotification n = notifications.readValue(message);
            if (n != null) {
                return n;
            }
        } catch (IOException | RuntimeException e) {
            String method = message.get("method").textValue();
            if (mismatched.add(method)) {
                LOG.warn("Notification {} does not match the schema; delivering it unrecognised: {}", method,
                        e.getMessage());
            } else {
                LOG.debug("Notification {} does not match the schema: {}", method, e.getMessage());
            }
        }
        return new ServerNotification.Unrecognized(message);
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
        return reader(type).readValue(result);
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
            return reader(type).readValue(mapper.createObjectNode());
        }
        return reader(type).readValue(parser);
    }

    /** The reader of one result type; built once, since it looks up and keeps the type's deserializer. */
    private ObjectReader reader(Class<?> type) {
        return resultReaders.computeIfAbsent(type, mapper::readerFor);
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
        reply.set("id", idNode(id));
        ObjectNode err = reply.putObject("error");
        err.put("code", code);
        err.put("message", message);
        if (data != null) {
            err.set("data", data);
        }
        return mapper.writeValueAsBytes(reply);
    }

    /** The id as a tree holds it: a number or a string. */
    private JsonNode idNode(RequestId id) {
        return id instanceof RequestId.Number n ? mapper.getNodeFactory().numberNode(n.value())
                : mapper.getNodeFactory().textNode(((RequestId.Text) id).value());
    }

    private static void writeId(JsonGenerator g, RequestId id) throws IOException {
        if (id instanceof RequestId.Number n) {
            g.writeNumber(n.value());
        } else {
            g.writeString(((RequestId.Text) id).value());
        }
    }
}
