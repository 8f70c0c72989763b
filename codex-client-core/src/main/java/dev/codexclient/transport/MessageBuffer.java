package dev.codexclient.transport;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Complete messages a transport read together, in wire order: byte ranges of one array, each the UTF-8 bytes of one
 * JSON text without its terminator. A stream transport hands over the lines one read completed as ranges of its
 * own read buffer (nothing is copied); a message transport (a WebSocket) appends the frames it has at hand.
 *
 * <p>Keeping the messages of a read in one array lets the reader parse them with one parser, where a parser per
 * message costs more than the shortest messages themselves. A buffer is only valid during the
 * {@link MessageSink#onMessages} call it is passed to: the transport reuses it, and its array, afterwards. A sink
 * that keeps a message copies it ({@link #copy(int)}).
 *
 * <p>Not thread-safe: filled and read by a transport's one reader thread.
 */
public final class MessageBuffer {

    private static final int[] NO_BOUNDS = new int[0];

    private byte[] bytes;
    /** Whether {@link #bytes} is this buffer's own storage, which {@link #add} may write. */
    private boolean own;
    /** Start and end of every message, in pairs. */
    private int[] bounds = NO_BOUNDS;
    private int count;
    /** End of the bytes {@link #add} has written. */
    private int filled;

    /** An empty buffer that {@link #add} fills. */
    public MessageBuffer() {
        this.bytes = new byte[0];
        this.own = true;
    }

    /**
     * A buffer of the given messages, copied into one array: for tests and transports that have messages one by one.
     *
     * @param messages the messages, each the bytes of one JSON text
     * @return a buffer holding them in this order
     */
    public static MessageBuffer of(byte[]... messages) {
        MessageBuffer buffer = new MessageBuffer();
        for (byte[] message : messages) {
            buffer.add(message, 0, message.length);
        }
        return buffer;
    }

    /**
     * Empties the buffer; its messages will be ranges of {@code array}, added by {@link #addRange}. The array is
     * the caller's (a stream transport's read buffer): the buffer never writes to it. Only the stream transports'
     * framer ({@link LineFramer}, beside it) fills a buffer this way: a range is valid only while its buffer is.
     */
    void reset(byte[] array) {
        this.bytes = array;
        this.own = false;
        this.count = 0;
        this.filled = 0;
    }

    /** Empties the buffer, keeping its own storage for the next {@link #add} calls. */
    public void clear() {
        if (!own) {
            bytes = new byte[0];
            own = true;
        }
        count = 0;
        filled = 0;
    }

    /** Adds a message that lies in the array given to {@link #reset(byte[])}; {@code end} is exclusive. */
    void addRange(int start, int end) {
        if (start < 0 || end < start || end > bytes.length) {
            throw new IndexOutOfBoundsException("message [" + start + ", " + end + ") of " + bytes.length);
        }
        push(start, end);
    }

    /**
     * Appends a copy of a message to this buffer's own storage.
     *
     * @param message an array holding the message
     * @param offset  index of its first byte
     * @param length  its length in bytes
     * @throws IllegalStateException when the buffer holds ranges of a transport's own array and was not
     *                               {@link #clear() cleared} since
     */
    public void add(byte[] message, int offset, int length) {
        if (!own) {
            throw new IllegalStateException("the buffer holds ranges of a transport's array; clear() it first");
        }
        int end = filled + length;
        if (end > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(end, Math.max(256, bytes.length * 2)));
        }
        System.arraycopy(message, offset, bytes, filled, length);
        push(filled, end);
        filled = end;
    }

    private void push(int start, int end) {
        if (2 * count + 2 > bounds.length) {
            bounds = Arrays.copyOf(bounds, Math.max(16, bounds.length * 2));
        }
        bounds[2 * count] = start;
        bounds[2 * count + 1] = end;
        count++;
    }

    /**
     * The number of messages.
     *
     * @return how many messages the buffer holds
     */
    public int count() {
        return count;
    }

    /**
     * Whether the buffer holds no message.
     *
     * @return true when {@link #count()} is 0
     */
    public boolean isEmpty() {
        return count == 0;
    }

    /**
     * The array every message lies in. Read it only within the ranges of the messages, and do not write it.
     *
     * @return the array
     */
    public byte[] array() {
        return bytes;
    }

    /**
     * Where a message starts in {@link #array()}.
     *
     * @param index the message's index, from 0
     * @return the index of its first byte
     */
    public int start(int index) {
        return bounds[2 * checked(index)];
    }

    /**
     * Where a message ends in {@link #array()}.
     *
     * @param index the message's index, from 0
     * @return the index after its last byte
     */
    public int end(int index) {
        return bounds[2 * checked(index) + 1];
    }

    /**
     * The length of a message.
     *
     * @param index the message's index, from 0
     * @return its length in bytes
     */
    public int length(int index) {
        return end(index) - start(index);
    }

    /**
     * A copy of a message, for a sink that keeps it beyond the call.
     *
     * @param index the message's index, from 0
     * @return its bytes, in a new array
     */
    public byte[] copy(int index) {
        return Arrays.copyOfRange(bytes, start(index), end(index));
    }

    /**
     * A message as text.
     *
     * @param index the message's index, from 0
     * @return its bytes decoded as UTF-8
     */
    public String text(int index) {
        return new String(bytes, start(index), length(index), StandardCharsets.UTF_8);
    }

    private int checked(int index) {
        if (index < 0 || index >= count) {
            throw new IndexOutOfBoundsException("message " + index + " of " + count);
        }
        return index;
    }

    @Override
    public String toString() {
        return "MessageBuffer[" + count + " messages]";
    }
}
