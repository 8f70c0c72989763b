package dev.codexclient.transport;

/**
 * Receives what a {@link Transport} reads. A transport calls these methods from a single thread, in wire order,
 * and never concurrently; an implementation must return quickly and must not throw.
 */
public interface MessageSink {

    /**
     * Complete messages read together, in wire order: every line one read of a stream completed, or the frames a
     * message transport has at hand. The buffer and its array are only valid during the call (the transport reuses
     * them); a sink that keeps a message copies it with {@link MessageBuffer#copy(int)}.
     *
     * @param messages one or more messages, in wire order
     */
    void onMessages(MessageBuffer messages);

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
