package dev.codexclient.transport;

import java.util.List;

/**
 * Receives what a {@link Transport} reads. A transport calls these methods from a single thread, in wire order,
 * and never concurrently; an implementation must return quickly and must not throw.
 */
public interface MessageSink {

    /**
     * One complete message: the UTF-8 bytes of one JSON text, without the line terminator. The array is owned by
     * the sink from now on.
     *
     * @param message the message's bytes; the transport does not touch the array again
     */
    void onMessage(byte[] message);

    /**
     * Several complete messages read together, in wire order (typically what one read of a stream completed). A
     * transport may call this instead of {@link #onMessage} once per message; a sink may then hand the batch on in
     * one step (the client's dispatcher wakes a delivery thread once per batch rather than once per message). The
     * list is only valid during the call; the arrays in it are owned by the sink.
     *
     * @param messages the messages, in wire order; the default hands each to {@link #onMessage(byte[])}
     */
    default void onMessages(List<byte[]> messages) {
        for (byte[] message : messages) {
            onMessage(message);
        }
    }

    /**
     * A message longer than the transport's cap was read and discarded (drained, not buffered). The connection
     * stays usable.
     *
     * @param length the number of bytes discarded
     */
    default void onOversizedMessage(long length) {
    }

    /**
     * The transport ended: no further messages will arrive and sends will fail. Called exactly once.
     *
     * @param termination why it ended: requested, or the peer went away (with the exit code and stderr tail of a
     *                    child process, when known)
     */
    void onClosed(TransportTermination termination);
}
