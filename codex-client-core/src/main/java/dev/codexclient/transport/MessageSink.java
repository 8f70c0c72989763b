package dev.codexclient.transport;

/**
 * Receives what a {@link Transport} reads. A transport calls these methods from a single thread, in wire order,
 * and never concurrently; an implementation must return quickly and must not throw.
 */
public interface MessageSink {

    /**
     * One complete message: the UTF-8 bytes of one JSON text, without the line terminator. The array is owned by
     * the sink from now on.
     */
    void onMessage(byte[] message);

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
     */
    void onClosed(TransportTermination termination);
}
