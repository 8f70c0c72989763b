package dev.codexclient.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.codexclient.testkit.internal.fake.Json;
import java.util.Objects;

/** A notification the client sent to the fake (for example {@code initialized}), as it appeared on the wire. */
public final class RecordedNotification {
    private final String method;
    private final JsonNode params;
    private final JsonNode raw;
    private final long sequence;

    RecordedNotification(String method, JsonNode params, JsonNode raw, long sequence) {
        this.method = Objects.requireNonNull(method, "method");
        this.params = params == null ? MissingNode.getInstance() : params;
        this.raw = raw;
        this.sequence = sequence;
    }

    /** {@return the notification's method, e.g. {@code initialized}} */
    public String method() {
        return method;
    }

    /** {@return the params; a {@link MissingNode} when the notification had none} */
    public JsonNode params() {
        return params.deepCopy();
    }

    /**
     * The params mapped to {@code type} (lenient: unknown fields are ignored).
     *
     * @param <T> the type to map to
     * @param type the class to map to (a record, a map, a protocol type)
     * @return the params as {@code type}
     */
    public <T> T params(Class<T> type) {
        return Json.convert(params, type);
    }

    /** {@return the whole message as received (a copy)} */
    public JsonNode raw() {
        return raw.deepCopy();
    }

    /** {@return position of this message among everything the fake received (0-based)} */
    public long sequence() {
        return sequence;
    }

    @Override
    public String toString() {
        return "RecordedNotification{method=" + method + ", params=" + Json.abbreviate(params) + '}';
    }
}
