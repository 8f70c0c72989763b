package dev.codexclient.transport;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Splits a byte stream into newline-delimited messages (JSONL) without decoding it.
 *
 * <p>Lines are found on raw bytes: {@code '\n'} never occurs inside a multi-byte UTF-8 sequence, so a character
 * split across two reads is simply carried over with the rest of the unfinished line. Reads go straight into one
 * reusable buffer, and the lines one read completes reach the sink in one {@link MessageSink#onMessages} call as
 * ranges of that buffer: nothing is copied, and the reader can parse them with one parser. A line longer than the cap is discarded as it
 * streams by (the buffer never grows past the cap) and reported through
 * {@link MessageSink#onOversizedMessage(long)}. One optional {@code '\r'} before the newline is stripped; blank
 * lines are skipped.
 *
 * <p>It sits beside {@link MessageBuffer}, whose range methods no other code may call: they let the buffer hold
 * ranges of the framer's own read buffer instead of copies.
 *
 * <p>Not thread-safe: owned by the one reader thread of a connection.
 */
final class LineFramer {

    /** The smallest cap accepted; anything lower could not carry an {@code initialize} response. */
    static final int MIN_MAX_LINE_BYTES = 1024;

    /** 128 MiB: far above what codex sends (tens of MB for a large diff or image). */
    static final int DEFAULT_MAX_LINE_BYTES = 128 * 1024 * 1024;

    static final int INITIAL_BUFFER = 64 * 1024;

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long NEWLINES = 0x0A0A0A0A0A0A0A0AL;
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGH_BITS = 0x8080808080808080L;

    private final int maxLineBytes;
    private final MessageSink sink;

    private byte[] buf = new byte[INITIAL_BUFFER];
    /** The lines of the current read, delivered together as ranges of {@link #buf}. */
    private final MessageBuffer batch = new MessageBuffer();
    /** Start of the unfinished line. */
    private int start;
    /** End of the valid bytes. */
    private int end;
    /** Where the next newline search begins; bytes in [start, scan) are known to hold no newline. */
    private int scan;

    /** Bytes of an oversized line discarded so far, or -1 when not discarding. */
    private long discarding = -1;
    private boolean discardingLastWasCr;

    /**
     * @param maxLineBytes the longest line delivered, without its terminator; at least {@value #MIN_MAX_LINE_BYTES}
     * @param sink         receives the lines
     */
    LineFramer(int maxLineBytes, MessageSink sink) {
        if (maxLineBytes < MIN_MAX_LINE_BYTES) {
            throw new IllegalArgumentException(
                    "maxLineBytes must be at least " + MIN_MAX_LINE_BYTES + " but was " + maxLineBytes);
        }
        if (maxLineBytes > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("maxLineBytes too large: " + maxLineBytes);
        }
        this.maxLineBytes = maxLineBytes;
        this.sink = sink;
    }

    /**
     * Reads {@code in} until end of stream, delivering every line. A final line without a newline is delivered
     * too: a peer that dies mid-write should leave a trace, and the layer above reports unparseable text.
     *
     * @throws IOException when reading fails; lines completed before the failure have been delivered
     */
    void readAll(InputStream in) throws IOException {
        while (true) {
            if (end == buf.length) {
                makeRoom();
            }
            int n = in.read(buf, end, buf.length - end);
            if (n < 0) {
                finish();
                return;
            }
            if (n == 0) {
                continue;
            }
            end += n;
            if (discarding >= 0) {
                discard();
            }
            if (discarding < 0) {
                splitLines();
            }
        }
    }

    /** The current buffer size: lets tests check that an oversized line does not grow it. */
    int bufferCapacity() {
        return buf.length;
    }

    /** In discard mode: skips bytes up to and including the next newline. */
    private void discard() {
        for (int i = start; i < end; i++) {
            if (buf[i] == '\n') {
                long length = discarding + (i - start);
                boolean cr = i > start ? buf[i - 1] == '\r' : discardingLastWasCr;
                if (cr) {
                    length--;
                }
                discarding = -1;
                start = i + 1;
                scan = start;
                sink.onOversizedMessage(length);
                return;
            }
        }
        discarding += end - start;
        discardingLastWasCr = end > start && buf[end - 1] == '\r';
        start = 0;
        end = 0;
        scan = 0;
    }

    private void splitLines() {
        byte[] b = buf;
        batch.reset(b);
        int lineStart = start;
        int limit = end;
        for (int i = indexOfNewline(b, scan, limit); i >= 0; i = indexOfNewline(b, i + 1, limit)) {
            emit(lineStart, i);
            lineStart = i + 1;
        }
        flush();
        start = lineStart;
        scan = limit;
        if (start == end) {
            start = 0;
            end = 0;
            scan = 0;
            if (buf.length > INITIAL_BUFFER) {
                // A huge line grew the buffer; do not pin that memory for the rest of the connection.
                buf = new byte[INITIAL_BUFFER];
            }
        } else if (end - start > maxLineBytes + 1) {
            // Cap plus one: the last byte may be the '\r' of a line that is exactly at the cap.
            discarding = end - start;
            discardingLastWasCr = buf[end - 1] == '\r';
            start = 0;
            end = 0;
            scan = 0;
        }
    }

    /**
     * The index of the first {@code '\n'} in {@code b[from, to)}, or -1. Looks at eight bytes per step: the newline
     * search runs over every byte codex sends, so a byte loop shows up in the reader thread's profile.
     */
    static int indexOfNewline(byte[] b, int from, int to) {
        int i = from;
        for (; i <= to - Long.BYTES; i += Long.BYTES) {
            long x = (long) LONGS.get(b, i) ^ NEWLINES;
            // A zero byte in x is a newline; this sets the high bit of the lowest such byte exactly.
            long found = (x - ONES) & ~x & HIGH_BITS;
            if (found != 0) {
                return i + (Long.numberOfTrailingZeros(found) >>> 3);
            }
        }
        for (; i < to; i++) {
            if (b[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    private void emit(int from, int newline) {
        int to = newline;
        if (to > from && buf[to - 1] == '\r') {
            to--;
        }
        int length = to - from;
        if (length > maxLineBytes) {
            flush();
            sink.onOversizedMessage(length);
            return;
        }
        if (isBlank(from, to)) {
            return;
        }
        batch.addRange(from, to);
    }

    /** Hands the lines completed by one read to the sink in one call. */
    private void flush() {
        if (!batch.isEmpty()) {
            try {
                sink.onMessages(batch);
            } finally {
                batch.reset(buf);
            }
        }
    }

    private boolean isBlank(int from, int to) {
        for (int i = from; i < to; i++) {
            byte c = buf[i];
            if (c != ' ' && c != '\t' && c != '\r') {
                return false;
            }
        }
        return true;
    }

    /** The buffer is full: move the unfinished line to the front, or grow up to the cap. */
    private void makeRoom() {
        if (start > 0) {
            int len = end - start;
            System.arraycopy(buf, start, buf, 0, len);
            scan -= start;
            start = 0;
            end = len;
            if (end < buf.length) {
                return;
            }
        }
        // Room for a line at the cap, its '\r' and one more byte that proves it is over the cap.
        int ceiling = maxLineBytes + 2;
        int grown = (int) Math.min((long) buf.length * 2, ceiling);
        if (grown <= buf.length) {
            grown = buf.length + 1;
        }
        buf = Arrays.copyOf(buf, grown);
    }

    private void finish() {
        if (discarding >= 0) {
            long length = discarding + (end - start);
            discarding = -1;
            sink.onOversizedMessage(length);
        } else if (end > start) {
            batch.reset(buf);
            emit(start, end);
            flush();
        }
        start = 0;
        end = 0;
        scan = 0;
    }
}
