package dev.codexclient.spring.ai;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * What is logged at ERROR while it is open: slf4j-simple writes to {@code System.err} as it is at each call, so this
 * swaps it for a buffer (and still echoes it). Tests of one class run one after another, so nothing else writes here.
 */
final class ErrorLog implements AutoCloseable {
    private final PrintStream original = System.err;
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

    ErrorLog() {
        System.setErr(new PrintStream(new java.io.OutputStream() {
            @Override
            public void write(int b) {
                captured.write(b);
                original.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                captured.write(b, off, len);
                original.write(b, off, len);
            }
        }, true, StandardCharsets.UTF_8));
    }

    /** {@return the lines logged at ERROR so far} */
    java.util.List<String> errors() {
        System.err.flush();
        return captured.toString(StandardCharsets.UTF_8).lines().filter(l -> l.contains(" ERROR ")).toList();
    }

    @Override
    public void close() {
        System.setErr(original);
    }
}
