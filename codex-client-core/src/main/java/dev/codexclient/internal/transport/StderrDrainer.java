package dev.codexclient.internal.transport;

import dev.codexclient.internal.Redactor;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a child's stderr continuously so the child never blocks on a full pipe, logs each line (redacted) at DEBUG
 * on {@code dev.codexclient.transport.stderr}, and keeps a bounded tail for error messages.
 */
public final class StderrDrainer implements Runnable {

    /** The logger stderr lines go to. */
    public static final String LOGGER_NAME = "dev.codexclient.transport.stderr";

    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(LOGGER_NAME);
    }


    /** Longer stderr lines are cut; the tail keeps even less. */
    private static final int MAX_STDERR_LINE = 64 * 1024;

    /** codex colours its log lines; escape sequences only clutter an error message. */
    private static final Pattern ANSI_ESCAPE = Pattern.compile("\u001B\\[[0-9;?]*[A-Za-z]");

    private final InputStream in;
    private final StderrTail tail;
    private final Redactor redactor;
    private final String source;

    private byte[] line = new byte[1024];
    private int lineLength;
    private boolean lineTruncated;

    public StderrDrainer(InputStream in, StderrTail tail, Redactor redactor, String source) {
        this.in = in;
        this.tail = tail;
        this.redactor = redactor;
        this.source = source;
    }

    @Override
    public void run() {
        byte[] buf = new byte[16 * 1024];
        try {
            int n;
            while ((n = in.read(buf)) >= 0) {
                int from = 0;
                for (int i = 0; i < n; i++) {
                    if (buf[i] == '\n') {
                        append(buf, from, i);
                        flushLine();
                        from = i + 1;
                    }
                }
                append(buf, from, n);
            }
        } catch (IOException e) {
            // The stream is closed when the transport shuts down; nothing is lost that matters.
            Log.LOG.trace("stderr of {} ended: {}", source, e.toString());
        } catch (RuntimeException e) {
            Log.LOG.warn("stderr drainer of {} failed", source, e);
        } finally {
            flushLine();
        }
    }

    private void append(byte[] buf, int from, int to) {
        int len = to - from;
        if (len <= 0) {
            return;
        }
        int room = MAX_STDERR_LINE - lineLength;
        if (len > room) {
            len = room;
            lineTruncated = true;
        }
        if (len <= 0) {
            return;
        }
        if (lineLength + len > line.length) {
            line = Arrays.copyOf(line, Math.min(MAX_STDERR_LINE, Math.max(line.length * 2, lineLength + len)));
        }
        System.arraycopy(buf, from, line, lineLength, len);
        lineLength += len;
    }

    private void flushLine() {
        int len = lineLength;
        if (len > 0 && line[len - 1] == '\r') {
            len--;
        }
        String text = new String(line, 0, len, StandardCharsets.UTF_8);
        if (text.indexOf('\u001B') >= 0) {
            text = ANSI_ESCAPE.matcher(text).replaceAll("");
        }
        text = text.strip();
        if (lineTruncated) {
            text = text + " ...[truncated]";
        }
        lineLength = 0;
        lineTruncated = false;
        if (line.length > 4096) {
            line = new byte[1024];
        }
        if (text.isEmpty()) {
            return;
        }
        tail.add(text);
        if (Log.LOG.isDebugEnabled()) {
            Log.LOG.debug("[{}] {}", source, redactor.redact(text));
        }
    }
}
