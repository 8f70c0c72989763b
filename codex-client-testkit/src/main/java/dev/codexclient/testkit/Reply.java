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

    /**
     * A successful result; {@code result} is any Jackson-serialisable value (a record, a map, a JsonNode).
     *
     * @param result the result: any Jackson-serialisable value (a protocol record, a map, a JsonNode)
     * @return the reply
     */
    static Reply result(Object result) {
        return new Result(Json.tree(result));
    }

    /**
     * A JSON-RPC error without data.
     *
     * @param code the JSON-RPC error code, e.g. -32600
     * @param message the error message
     * @return the reply
     */
    static Reply error(int code, String message) {
        return new Error(code, message, Optional.empty());
    }

    /**
     * A JSON-RPC error with {@code data}.
     *
     * @param code the JSON-RPC error code, e.g. -32600
     * @param message the error message
     * @param data the error's data: any Jackson-serialisable value
     * @return the reply
     */
    static Reply error(int code, String message, Object data) {
        return new Error(code, message, Optional.of(Json.tree(data)));
    }

    /** A {@code result} reply. */
    record Result(JsonNode value) implements Reply {
        /**
         * Checks the value.
         *
         * @param value the result
         */
        public Result {
            Objects.requireNonNull(value, "value");
        }
    }

    /** An {@code error} reply. */
    record Error(int code, String message, Optional<JsonNode> data) implements Reply {
        /**
         * Checks the members.
         *
         * @param code the JSON-RPC error code
         * @param message the error message
         * @param data the error's data, if any
         */
        public Error {
            Objects.requireNonNull(message, "message");
            Objects.requireNonNull(data, "data");
        }
    }
}
