package dev.codexclient.internal.transport;

import dev.codexclient.transport.MessageSink;
import java.io.IOException;
import java.io.InputStream;

/**
 * How a stream transport's engine turns the bytes it reads into messages: the transport gives its engine one (a
 * framer of newline-delimited messages, with the transport's line cap), which the engine's reader thread runs.
 */
@FunctionalInterface
public interface StreamReader {
    /**
     * Reads {@code in} until its end, handing every message to {@code sink}.
     *
     * @param in   the stream
     * @param sink receives the messages
     * @throws IOException when reading fails; what was complete before the failure was handed over
     */
    void readAll(InputStream in, MessageSink sink) throws IOException;
}
