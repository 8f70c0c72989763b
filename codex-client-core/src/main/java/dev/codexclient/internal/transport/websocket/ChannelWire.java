package dev.codexclient.internal.transport.websocket;

import java.io.IOException;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

/**
 * A connected socket channel with deadlines: reads and writes that wait at most until a given
 * {@link System#nanoTime()}, which blocking channels cannot do (they have no timeouts).
 *
 * <p>The channel is non-blocking; the reading thread waits on one selector and the writing thread on another, so a
 * read and a write may be in progress at the same time and neither waits for the other. {@link #close()} from any
 * thread wakes both.
 */
final class ChannelWire implements AutoCloseable {

    /** Wait without a deadline. */
    static final long NO_DEADLINE = Long.MAX_VALUE;

    private final SocketChannel channel;
    private final Selector readSelector;
    private final Selector writeSelector;
    private volatile boolean closed;

    private ChannelWire(SocketChannel channel, Selector readSelector, Selector writeSelector) {
        this.channel = channel;
        this.readSelector = readSelector;
        this.writeSelector = writeSelector;
    }

    /** Opens a channel of the address's family and connects it, waiting at most until {@code deadlineNanos}. */
    static ChannelWire connect(SocketAddress address, long deadlineNanos) throws IOException {
        SocketChannel channel = SocketChannel.open(address instanceof java.net.UnixDomainSocketAddress
                ? java.net.StandardProtocolFamily.UNIX : java.net.StandardProtocolFamily.INET);
        Selector readSelector = null;
        Selector writeSelector = null;
        try {
            channel.configureBlocking(false);
            readSelector = Selector.open();
            writeSelector = Selector.open();
            if (!channel.connect(address)) {
                channel.register(writeSelector, SelectionKey.OP_CONNECT);
                while (!channel.finishConnect()) {
                    await(writeSelector, deadlineNanos, "connecting");
                }
            }
            channel.register(readSelector, SelectionKey.OP_READ);
            channel.register(writeSelector, SelectionKey.OP_WRITE);
            return new ChannelWire(channel, readSelector, writeSelector);
        } catch (IOException | RuntimeException e) {
            closeQuietly(channel);
            closeQuietly(readSelector);
            closeQuietly(writeSelector);
            throw e;
        }
    }

    /**
     * Reads at least one byte into {@code dst} (which must have room), waiting until {@code deadlineNanos}.
     *
     * @return the number of bytes read, or -1 at end of stream
     * @throws SocketTimeoutException when nothing arrived in time
     */
    int read(ByteBuffer dst, long deadlineNanos) throws IOException {
        while (true) {
            int n = channel.read(dst);
            if (n != 0) {
                return n;
            }
            await(readSelector, deadlineNanos, "reading");
            checkOpen();
        }
    }

    /**
     * Writes every remaining byte of {@code buffers}, waiting until {@code deadlineNanos} for the peer to make room.
     *
     * @throws SocketTimeoutException when the peer did not take the bytes in time; part of them may have been sent
     */
    void write(ByteBuffer[] buffers, long deadlineNanos) throws IOException {
        while (remaining(buffers)) {
            if (channel.write(buffers) == 0) {
                await(writeSelector, deadlineNanos, "writing");
                checkOpen();
            }
        }
    }

    /** Whether {@link #close()} was called (or a read or write found the channel closed). */
    boolean isClosed() {
        return closed || !channel.isOpen();
    }

    /** Closes the channel and both selectors; a thread waiting in {@link #read} or {@link #write} fails at once. */
    @Override
    public void close() {
        closed = true;
        closeQuietly(channel);
        // Closing a selector wakes a thread blocked in it; that thread then sees the channel closed.
        closeQuietly(readSelector);
        closeQuietly(writeSelector);
    }

    private void checkOpen() throws IOException {
        if (closed) {
            throw new AsynchronousCloseException();
        }
    }

    private static boolean remaining(ByteBuffer[] buffers) {
        for (ByteBuffer b : buffers) {
            if (b.hasRemaining()) {
                return true;
            }
        }
        return false;
    }

    private static void await(Selector selector, long deadlineNanos, String what) throws IOException {
        try {
            if (deadlineNanos == NO_DEADLINE) {
                selector.select();
            } else {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    throw new SocketTimeoutException("timed out " + what);
                }
                // select(0) would wait forever: never pass less than one millisecond.
                selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            }
            selector.selectedKeys().clear();
        } catch (ClosedSelectorException e) {
            throw new AsynchronousCloseException();
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception ignored) {
            // closing is best effort; the channel is abandoned either way
        }
    }
}
