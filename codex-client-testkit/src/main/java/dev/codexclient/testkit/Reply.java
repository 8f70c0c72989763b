package dev.codexclient.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.testkit.internal.fake.Json;
import java.util.Objects;
import java.util.Optional;

/**
 * What the fake answers to one client request: a result or a JSON-RPC error. Returned from
 * {@link Stubbing#respondWith(java.util.function.Function)} when a computed answer may be an error.
 */
public sealed interface Reply permits Reply.Result, Reply.Error {

    /** A successful result; {@code result} is any Jackson-serialisable value (a record, a map, a JsonNode). */
    static Reply result(Object result) {
        return new Result(Json.tree(result));
    }

    static Reply error(int code, String message) {
        return new Error(code, message, Optional.empty());
    }

    static Reply error(int code, String message, Object data) {
        return new Error(code, message, Optional.of(Json.tree(data)));
    }

    /** A {@code result} reply. */
    record Result(JsonNode value) implements Reply {
        public Result {
            Objects.requireNonNull(value, "value");
        }
    }

    /** An {@code error} reply. */
    record Error(int code, String message, Optional<JsonNode> data) implements Reply {
        public Error {
            Objects.requireNonNull(message, "message");
            Objects.requireNonNull(data, "data");
        }
    }
}
