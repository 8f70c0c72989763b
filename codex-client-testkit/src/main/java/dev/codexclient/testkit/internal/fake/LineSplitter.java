package dev.codexclient.testkit.internal.fake;

import java.io.ByteArrayOutputStream;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * Cuts a byte stream into newline-terminated lines. Works on bytes, not chars, so a UTF-8 character split across
 * two reads is reassembled before anyone decodes it. A line longer than the cap is drained and reported by length
 * instead of being buffered.
 */
public final class LineSplitter {
    private final int maxLineBytes;
    private final Consumer<byte[]> onLine;
    private final LongConsumer onOversized;
    private final ByteArrayOutputStream current = new ByteArrayOutputStream();
    private long oversizedLength = -1;

    public LineSplitter(int maxLineBytes, Consumer<byte[]> onLine, LongConsumer onOversized) {
        this.maxLineBytes = maxLineBytes;
        this.onLine = onLine;
        this.onOversized = onOversized;
    }

    public void feed(byte[] bytes, int offset, int length) {
        int start = offset;
        int end = offset + length;
        for (int i = offset; i < end; i++) {
            if (bytes[i] == '\n') {
                append(bytes, start, i - start);
                finishLine();
                start = i + 1;
            }
        }
        append(bytes, start, end - start);
    }

    /** Delivers a final line that had no terminator (the peer closed mid-line). */
    public void finish() {
        if (current.size() > 0 || oversizedLength >= 0) {
            finishLine();
        }
    }

    private void append(byte[] bytes, int start, int length) {
        if (length <= 0) {
            return;
        }
        if (oversizedLength >= 0) {
            oversizedLength += length;
            return;
        }
        if (current.size() + length > maxLineBytes) {
            oversizedLength = current.size() + (long) length;
            current.reset();
            return;
        }
        current.write(bytes, start, length);
    }

    private void finishLine() {
        if (oversizedLength >= 0) {
            long length = oversizedLength;
            oversizedLength = -1;
            onOversized.accept(length);
            return;
        }
        byte[] line = current.toByteArray();
        current.reset();
        int len = line.length;
        if (len > 0 && line[len - 1] == '\r') {
            len--;
        }
        if (len == 0) {
            return;
        }
        if (len != line.length) {
            byte[] trimmed = new byte[len];
            System.arraycopy(line, 0, trimmed, 0, len);
            line = trimmed;
        }
        onLine.accept(line);
    }
}
