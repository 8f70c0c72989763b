package dev.codexclient.agent;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Copies what is written to {@code System.err} while open, where slf4j-simple writes the log (it looks the stream up
 * at each line), so a test can read the log lines of what it ran.
 */
final class ErrCapture implements AutoCloseable {
    private final PrintStream original = System.err;
    private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

    ErrCapture() {
        PrintStream both = new PrintStream(new java.io.OutputStream() {
            @Override
            public void write(int b) {
                synchronized (copy) {
                    copy.write(b);
                }
                original.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                synchronized (copy) {
                    copy.write(b, off, len);
                }
                original.write(b, off, len);
            }
        }, true, StandardCharsets.UTF_8);
        System.setErr(both);
    }

    String text() {
        synchronized (copy) {
            return copy.toString(StandardCharsets.UTF_8);
        }
    }

    @Override
    public void close() {
        System.setErr(original);
    }
}
