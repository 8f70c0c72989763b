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

    public String method() {
        return method;
    }

    /** The params; a {@link MissingNode} when the notification had none. */
    public JsonNode params() {
        return params.deepCopy();
    }

    public <T> T params(Class<T> type) {
        return Json.convert(params, type);
    }

    public JsonNode raw() {
        return raw.deepCopy();
    }

    /** Position of this message among everything the fake received (0-based). */
    public long sequence() {
        return sequence;
    }

    @Override
    public String toString() {
        return "RecordedNotification{method=" + method + ", params=" + Json.abbreviate(params) + '}';
    }
}
