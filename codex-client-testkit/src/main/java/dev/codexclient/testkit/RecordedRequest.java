package dev.codexclient.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.codexclient.protocol.RequestId;
import dev.codexclient.testkit.internal.fake.Json;
import java.util.Objects;

/**
 * A request the client sent to the fake, as it appeared on the wire. {@link #params(Class)} reads the params as
 * any Jackson-mappable type, e.g. a generated protocol record:
 * <pre>{@code
 * RecordedRequest req = fake.takeRequest("turn/start", Duration.ofSeconds(5));
 * assertThat(req.params().path("input").get(0).path("text").asText()).isEqualTo("hi");
 * }</pre>
 */
public final class RecordedRequest {
    private final RequestId id;
    private final String method;
    private final JsonNode params;
    private final JsonNode raw;
    private final long sequence;

    RecordedRequest(RequestId id, String method, JsonNode params, JsonNode raw, long sequence) {
        this.id = Objects.requireNonNull(id, "id");
        this.method = Objects.requireNonNull(method, "method");
        this.params = params == null ? MissingNode.getInstance() : params;
        this.raw = raw;
        this.sequence = sequence;
    }

    /** {@return the id the client chose, with its JSON type (string or integer) kept} */
    public RequestId id() {
        return id;
    }

    /** {@return the request's method, e.g. {@code thread/start}} */
    public String method() {
        return method;
    }

    /** {@return the params; a {@link MissingNode} when the request had none} */
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

    /** {@return the whole message as received} */
    public JsonNode raw() {
        return raw.deepCopy();
    }

    /** {@return position of this message among everything the fake received (0-based)} */
    public long sequence() {
        return sequence;
    }

    @Override
    public String toString() {
        return "RecordedRequest{id=" + id + ", method=" + method + ", params=" + Json.abbreviate(params) + '}';
    }
}
