package dev.codexclient.internal.transport;

import dev.codexclient.internal.Redactor;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The last lines a child wrote to stderr, bounded both by line count and by bytes, for error messages.
 *
 * <p>Lines are stored as written and redacted only when a snapshot is taken: stderr can run at hundreds of KB per
 * second, while snapshots are rare (one per failure).
 */
public final class StderrTail {

    private final int maxLines;
    private final int maxBytes;
    private final Redactor redactor;
    private final Deque<String> lines = new ArrayDeque<>();
    private final Deque<Integer> sizes = new ArrayDeque<>();
    private int bytes;

    public StderrTail(int maxLines, int maxBytes, Redactor redactor) {
        if (maxLines < 1 || maxBytes < 1) {
            throw new IllegalArgumentException("stderr tail bounds must be positive: " + maxLines + ", " + maxBytes);
        }
        this.maxLines = maxLines;
        this.maxBytes = maxBytes;
        this.redactor = redactor;
    }

    /** Appends one line; a line longer than the byte bound keeps only its end, which usually names the error. */
    public synchronized void add(String line) {
        String kept = line;
        int size = utf8Length(kept);
        if (size > maxBytes) {
            kept = "..." + truncateFromStart(kept, maxBytes - 3);
            size = utf8Length(kept);
        }
        lines.addLast(kept);
        sizes.addLast(size);
        bytes += size;
        while (lines.size() > maxLines || (bytes > maxBytes && lines.size() > 1)) {
            lines.removeFirst();
            bytes -= sizes.removeFirst();
        }
    }

    /** The kept lines joined by newlines, redacted; empty when nothing was written. */
    public String snapshot() {
        String joined;
        synchronized (this) {
            joined = String.join("\n", lines);
        }
        return redactor.redact(joined);
    }

    private static String truncateFromStart(String s, int maxUtf8Bytes) {
        int budget = Math.max(0, maxUtf8Bytes);
        int i = s.length();
        int used = 0;
        while (i > 0) {
            int cp = s.codePointBefore(i);
            int len = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            if (used + len > budget) {
                break;
            }
            used += len;
            i -= Character.charCount(cp);
        }
        return s.substring(i);
    }

    private static int utf8Length(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }
}
