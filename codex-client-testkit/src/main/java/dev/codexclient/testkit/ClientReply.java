package dev.codexclient.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.protocol.RequestId;
import dev.codexclient.testkit.internal.fake.Json;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The client's answer to a request the fake sent (an approval, a dynamic tool call, ...): a result or an error.
 * <pre>{@code
 * ClientReply reply = fake.sendRequest("item/tool/call", params).awaitResponse(Duration.ofSeconds(5));
 * assertThat(reply.result().path("success").asBoolean()).isTrue();
 * }</pre>
 */
public final class ClientReply {
    private final RequestId id;
    private final JsonNode raw;

    ClientReply(RequestId id, JsonNode raw) {
        this.id = id;
        this.raw = raw;
    }

    /** {@return the id of the server request this reply answers} */
    public RequestId id() {
        return id;
    }

    /** {@return whether the client answered with a JSON-RPC error rather than a result} */
    public boolean isError() {
        return raw.has("error");
    }

    /** {@return the {@code result} member; a missing node when the client answered with an error} */
    public JsonNode result() {
        return raw.path("result").deepCopy();
    }

    /**
     * The result mapped to {@code type}; an {@link AssertionError} when the client answered with an error.
     *
     * @param <T> the type to map to
     * @param type the class to map to (a record, a map, a protocol type)
     * @return the result as {@code type}
     */
    public <T> T result(Class<T> type) {
        if (isError()) {
            throw new AssertionError("expected a result for server request " + id + " but the client answered "
                    + Json.abbreviate(raw.get("error")));
        }
        return Json.convert(raw.get("result"), type);
    }

    /** {@return the {@code decision} of an approval reply: a string decision, or the key of an object decision} */
    public Optional<String> decision() {
        JsonNode decision = raw.path("result").path("decision");
        if (decision.isTextual()) {
            return Optional.of(decision.asText());
        }
        if (decision.isObject() && decision.size() == 1) {
            return Optional.of(decision.fieldNames().next());
        }
        return Optional.empty();
    }

    /** {@return the code of an error reply; empty for a result} */
    public OptionalInt errorCode() {
        JsonNode code = raw.path("error").path("code");
        return code.isInt() ? OptionalInt.of(code.asInt()) : OptionalInt.empty();
    }

    /** {@return the message of an error reply; empty for a result or an error without a message} */
    public Optional<String> errorMessage() {
        JsonNode message = raw.path("error").path("message");
        return message.isTextual() ? Optional.of(message.asText()) : Optional.empty();
    }

    /** {@return the whole response message as received} */
    public JsonNode raw() {
        return raw.deepCopy();
    }

    @Override
    public String toString() {
        return "ClientReply" + Json.abbreviate(raw);
    }
}
