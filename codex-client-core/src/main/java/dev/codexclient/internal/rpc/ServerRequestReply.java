package dev.codexclient.internal.rpc;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * What the client answers a server request with: the {@code result} the server reads, or the failure the connection
 * answers as a JSON-RPC error. The stage the client layer hands the dispatcher completes with one of these, never with
 * null (the dispatcher answers a null stage or reply with an internal error, as a mistake of the client layer).
 */
public sealed interface ServerRequestReply {

    /**
     * The request is answered with {@code result}.
     *
     * @param result the result, as it goes on the wire: a JSON null is a {@code NullNode}, never {@code null}
     */
    record Result(JsonNode result) implements ServerRequestReply {
        /**
         * Checks the result is present.
         *
         * @param result the result
         */
        public Result {
            Objects.requireNonNull(result, "result");
        }
    }

    /**
     * The request is answered with a JSON-RPC error made from {@code cause}: its code and data when it is a
     * {@code CodexRpcException}, invalid params for an {@code IllegalArgumentException}, an internal error otherwise.
     *
     * @param cause why the request could not be answered
     */
    record Failure(Throwable cause) implements ServerRequestReply {
        /**
         * Checks the cause is present.
         *
         * @param cause why
         */
        public Failure {
            Objects.requireNonNull(cause, "cause");
        }
    }
}
