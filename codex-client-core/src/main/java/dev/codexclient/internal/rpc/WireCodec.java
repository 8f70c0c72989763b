package dev.codexclient.internal.rpc;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.protocol.RequestId;
import dev.codexclient.transport.MessageBuffer;
import java.io.IOException;

/**
 * Lines ↔ messages. The connection hands every buffer of lines it reads to {@link #decode} and writes what the encode methods
 * return; nothing else in the dispatcher knows JSON. {@link JsonWireCodec} is the implementation.
 */
public interface WireCodec {

    /**
     * Reads the messages of a buffer, in order, handing each to {@code out} before reading the next (so a result
     * that completes a call is routed before the line after it is read). Runs on the reader thread; it never
     * throws: whatever a line holds becomes an {@link Incoming}, {@link Incoming.Malformed} included, and reads
     * as {@link #decode(byte[], ResultTypes)} would read that line alone.
     *
     * @param results the type each pending call expects, so that a result is bound as it is read
     */
    void decode(MessageBuffer messages, ResultTypes results, Decoded out);

    /** Receives what {@link #decode(MessageBuffer, ResultTypes, Decoded)} read. */
    @FunctionalInterface
    interface Decoded {
        /**
         * One message.
         *
         * @param index its index in {@code messages}
         */
        void accept(Incoming incoming, MessageBuffer messages, int index);
    }

    /**
     * Reads one line. Runs on the reader thread, so it must be quick; it never throws: whatever the line holds
     * becomes an {@link Incoming}, {@link Incoming.Malformed} included.
     *
     * @param results the type each pending call expects, so that a result is bound as it is read
     */
    Incoming decode(byte[] line, ResultTypes results);

    /**
     * A request, or a notification when {@code id} is null.
     *
     * @param params the params object, or null to omit the member
     */
    byte[] encodeRequest(RequestId id, String method, Object params) throws IOException;

    /** A result reply; a null result is written as an empty object. */
    byte[] encodeResult(RequestId id, JsonNode result) throws IOException;

    /** An error reply; {@code data} may be null. */
    byte[] encodeError(RequestId id, int code, String message, JsonNode data) throws IOException;
}
