package dev.codexclient.examples;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Makes the examples print UTF-8 whatever the locale. JDK 17 encodes {@code System.out} in the locale's charset, and
 * a login shell that sets no {@code LANG} means ASCII: the model's "é" or "—" would print as "?" although the data
 * is intact. Terminals and logs today expect UTF-8, so the examples write it.
 */
final class Utf8Console {
    private Utf8Console() {
    }

    /** Points {@code System.out} and {@code System.err} at UTF-8 streams on the same file descriptors. */
    static void install() {
        System.out.flush();
        System.err.flush();
        // Unbuffered underneath: PrintStream hands every print on to the descriptor, so streamed text shows at once.
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8));
    }

    /** Non-ASCII text for checking the encoding (in escapes: a command line without a locale would mangle it). */
    static final String SAMPLE = "caf\u00e9 \u2014 na\u00efve \u2713";

    /**
     * Prints {@link #SAMPLE}, for checking the encoding from a test.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        install();
        System.out.println(SAMPLE);
    }
}
