package dev.codexclient.examples;

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

    /**
     * Makes {@code System.out} and {@code System.err} encode UTF-8. Each new stream writes its bytes through the one
     * it replaces (a {@code PrintStream} passes bytes on unchanged), so output a caller redirected stays redirected.
     */
    static void install() {
        if (!(System.out instanceof Utf8Stream)) {
            System.setOut(new Utf8Stream(System.out));
        }
        if (!(System.err instanceof Utf8Stream)) {
            System.setErr(new Utf8Stream(System.err));
        }
    }

    /** A UTF-8 stream over another stream's bytes; auto-flushing, so streamed text shows at once. */
    private static final class Utf8Stream extends PrintStream {
        Utf8Stream(PrintStream bytes) {
            super(bytes, true, StandardCharsets.UTF_8);
        }
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
