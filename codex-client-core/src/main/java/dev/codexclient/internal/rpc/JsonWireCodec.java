package dev.codexclient.internal.rpc;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.deser.DefaultDeserializationContext;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.protocol.ProtocolBinders;
import dev.codexclient.protocol.ProtocolJson;
import dev.codexclient.protocol.RequestId;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.transport.MessageBuffer;
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
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(JsonWireCodec.class);
    }

    private static final String RESOLVED = "serverRequest/resolved";

    private final ObjectMapper mapper;
    private final JsonFactory factory;
    private final DefaultDeserializationContext contexts;
    private final DeserializationConfig config;
    private final TokenOffsets tokenOffsets;
    /** The generated binder of the notification union, taken from the generated table rather than looked up. */
    private final JsonDeserializer<ServerNotification> notifications;
    private final Map<Class<?>, JsonDeserializer<Object>> binders = new ConcurrentHashMap<>();
    private final Map<Class<?>, ObjectReader> resultReaders = new ConcurrentHashMap<>();
    /** Methods whose notifications did not match the schema, each warned about once (bounded by the schema). */
    private final Set<String> mismatched = ConcurrentHashMap.newKeySet();

    public JsonWireCodec(ObjectMapper mapper) {
        this.mapper = mapper;
        this.factory = mapper.getFactory();
        this.contexts = (DefaultDeserializationContext) mapper.getDeserializationContext();
        this.config = mapper.getDeserializationConfig();
        this.tokenOffsets = TokenOffsets.of(factory);
        @SuppressWarnings("unchecked")
        JsonDeserializer<ServerNotification> binder =
                (JsonDeserializer<ServerNotification>) ProtocolBinders.rootBinder(ServerNotification.class);
        this.notifications = binder;
    }

    // ------------------------------------------------------------------------------------------------ decoding

    /**
     * Reads the messages of a buffer with one parser and one deserialization context: a parser costs more to set
     * up than a short message takes to read. The parser reads the lines as successive root values; each value
     * must start and end on its own line. A line that does not read as its first member promised (not JSON, two
     * values, a value that runs on into the next line, members in another order) is read alone, exactly as
     * {@link #decode(byte[], ResultTypes)} reads it, and a new parser resumes at the line after it: a bad line
     * costs its own line and one parser, never its neighbours.
     */
    @Override
    public void decode(MessageBuffer messages, ResultTypes results, Decoded out) {
        int next = 0;
        while (next < messages.count()) {
            next = decodeFrom(messages, next, results, out);
        }
    }

    /** Reads from line {@code first} on with one parser; returns the index of the first line not yet read. */
    private int decodeFrom(MessageBuffer messages, int first, ResultTypes results, Decoded out) {
        byte[] bytes = messages.array();
        int count = messages.count();
        int base = messages.start(first);
        int i = first;
        try (JsonParser p = factory.createParser(bytes, base, messages.end(count - 1) - base)) {
            DeserializationContext c = context(p);
            for (; i < count; i++) {
                Incoming in = null;
                int start = messages.start(i);
                int end = messages.end(i);
                try {
                    if (p.nextToken() == JsonToken.START_OBJECT && base + offset(p) >= start
                            && p.nextToken() == JsonToken.FIELD_NAME) {
                        in = firstMember(p, c, end - start, results);
                        if (in != null && base + offset(p) >= end) {
                            in = null; // it ran on into the next line: a line is one message
                        }
                    }
                } catch (IOException | RuntimeException notAsWritten) {
                    // Read alone below; the parser is past the error, so a new one resumes at the next line.
                }
                if (in == null) {
                    out.accept(decode(bytes, start, end - start, results), messages, i);
                    return i + 1;
                }
                out.accept(in, messages, i);
            }
        } catch (IOException closing) {
            // Closing a parser over an array does not fail.
        }
        return count;
    }

    /** The byte offset of the parser's current token, from where the parser started. */
    private long offset(JsonParser p) {
        return tokenOffsets.of(p);
    }

    @Override
    public Incoming decode(byte[] line, ResultTypes results) {
        return decode(line, 0, line.length, results);
    }

    /** Reads one line, {@code length} bytes of {@code bytes} from {@code offset}. */
    private Incoming decode(byte[] bytes, int offset, int length, ResultTypes results) {
        try (JsonParser p = factory.createParser(bytes, offset, length)) {
            if (p.nextToken() == JsonToken.START_OBJECT && p.nextToken() == JsonToken.FIELD_NAME) {
                Incoming in = firstMember(p, context(p), length, results);
                if (in != null) {
                    return in;
                }
            }
        } catch (IOException | RuntimeException notAsWritten) {
            // Not JSON, or not what its first member promised: the tree says what it is.
        }
        return fromTree(bytes, offset, length, results);
    }

    /** The message from its first member, where the parser stands; null to read the line as a tree. */
    private Incoming firstMember(JsonParser p, DeserializationContext c, int size, ResultTypes results)
            throws IOException {
        return switch (p.currentName()) {
            case "method" -> methodFirst(p, c, size);
            case "id" -> idFirst(p, c, results);
            default -> null;
        };
    }

    /**
     * A deserialization context for one parser, as an {@link ObjectReader} makes one per message; shared by every
     * message the parser reads, as Jackson's own {@code MappingIterator} shares one.
     */
    private DeserializationContext context(JsonParser p) {
        return contexts.createInstance(readerConfig(), p, mapper.getInjectableValues());
    }

    /** The thread that reads this codec's messages, and its config, which keeps the values a stream repeats. */
    private record Reader(Thread thread, DeserializationConfig config) {
    }

    private volatile Reader reader;

    /**
     * The config of the reader thread when called on it: {@link ProtocolJson#reusingRepeatedValues}, a cache that
     * belongs to one thread. The first thread to read claims it, and the next one once that thread has ended (the
     * reader of a new connection after a restart); any other thread reads with the plain config. Two threads that
     * claim at once each get a cache of their own; the one whose claim is not kept reads its current buffer with
     * its own and then plainly.
     */
    private DeserializationConfig readerConfig() {
        Thread current = Thread.currentThread();
        Reader r = reader;
        if (r != null && r.thread() == current) {
            return r.config();
        }
        if (r != null && r.thread().isAlive()) {
            return config;
        }
        r = new Reader(current, ProtocolJson.reusingRepeatedValues(config));
        reader = r;
        return r.config();
    }

    /** A message whose first member is {@code method}: a notification; null to read the line as a tree. */
    private Incoming methodFirst(JsonParser p, DeserializationContext c, int size) throws IOException {
        // The binder starts at the method's name, so the method is read once.
        ServerNotification n = notifications.deserialize(p, c);
        if (n == null || n.method() == null
                || (n instanceof ServerNotification.Unrecognized u && u.raw().hasNonNull("id"))) {
            // Not a notification at all, or an unknown method with an id: a server request from a newer server.
            return null;
        }
        return notification(n, size);
    }

    /**
     * The thread id the last notification named, as one string: a stream names one thread again and again, and the
     * lanes and the client look each up in a map, which would hash a fresh string every time. Meant for the reader
     * thread; read once per use, so that a second reader (during a restart) can only cost a miss.
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
    private Incoming idFirst(JsonParser p, DeserializationContext c, ResultTypes results) throws IOException {
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
                bound = type.cast(decodeResult(type, p, c));
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
                message.set(name, c.readTree(p));
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
    private Incoming fromTree(byte[] bytes, int offset, int length, ResultTypes results) {
        JsonNode node;
        try {
            node = mapper.readTree(bytes, offset, length);
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
                return notification(treeNotification(message), length);
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
            ServerNotification n = fromTokens(message, notifications);
            if (n != null) {
                return n;
            }
        } catch (IOException | RuntimeException e) {
            String method = message.get("method").textValue();
            if (mismatched.add(method)) {
                Log.LOG.warn("Notification {} does not match the schema; delivering it unrecognised: {}", method,
                        e.getMessage());
            } else {
                Log.LOG.debug("Notification {} does not match the schema: {}", method, e.getMessage());
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
        JsonDeserializer<Object> binder = binder(type);
        return binder != null ? fromTokens(result, binder) : reader(type).readValue(result);
    }

    /** Binds a tree with a generated binder. */
    private <T> T fromTokens(JsonNode tree, JsonDeserializer<T> binder) throws IOException {
        try (JsonParser p = mapper.treeAsTokens(tree)) {
            p.nextToken();
            return binder.deserialize(p, context(p));
        }
    }

    /** {@link #decodeResult(Class, JsonNode)} from the parser's current token, without a tree. */
    private Object decodeResult(Class<?> type, JsonParser parser, DeserializationContext c) throws IOException {
        if (type == Void.class) {
            parser.skipChildren();
            return null;
        }
        if (JsonNode.class.isAssignableFrom(type)) {
            return c.readTree(parser);
        }
        if (parser.currentToken() == JsonToken.VALUE_NULL) {
            return decodeResult(type, mapper.createObjectNode());
        }
        JsonDeserializer<Object> binder = binder(type);
        return binder != null ? binder.deserialize(parser, c) : reader(type).readValue(parser);
    }

    /**
     * The generated binder of a protocol result type, from the generated table; null for any other type, which
     * is read through Jackson's look-up ({@link #reader}).
     */
    @SuppressWarnings("unchecked")
    private JsonDeserializer<Object> binder(Class<?> type) {
        JsonDeserializer<Object> binder = binders.get(type);
        if (binder == null) {
            binder = (JsonDeserializer<Object>) ProtocolBinders.rootBinder(type);
            if (binder == null) {
                return null;
            }
            binders.putIfAbsent(type, binder);
        }
        return binder;
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
    public byte[] encodeResult(RequestId id, JsonNode result) throws IOException {
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
