package dev.codexclient.benchmarks;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The child process of the cross-process benchmarks: a minimal app-server on stdio. It answers every request
 * ({@code initialize} with a valid result, anything else with {@code {}}) and, given a stream file, writes that
 * file to stdout once the client sent {@code initialized} (or at once with {@code --immediate}). It does the same
 * cheap work for the SDK and for the baselines, so the difference between them is the client side.
 *
 * <p>Usage: {@code BenchServer [--immediate] [stream.jsonl]}; exits when stdin ends.
 */
public final class BenchServer {
    private static final byte[] INITIALIZE_RESULT = ("\"result\":{\"userAgent\":\"bench-server/0.169.0\","
            + "\"codexHome\":\"/tmp/bench-codex-home\",\"platformFamily\":\"unix\",\"platformOs\":\"linux\"}}")
            .getBytes(StandardCharsets.UTF_8);
    private static final byte[] EMPTY_RESULT = "\"result\":{}}".getBytes(StandardCharsets.UTF_8);

    private BenchServer() {
    }

    public static void main(String[] args) throws IOException {
        boolean immediate = false;
        Path stream = null;
        for (String a : args) {
            if (a.equals("--immediate")) {
                immediate = true;
            } else {
                stream = Path.of(a);
            }
        }
        OutputStream out = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16);
        if (immediate && stream != null) {
            blast(stream, out);
        }
        InputStream in = new BufferedInputStream(System.in, 1 << 16);
        ByteArrayOutputStream line = new ByteArrayOutputStream(256);
        for (int b = in.read(); b >= 0; b = in.read()) {
            if (b != '\n') {
                line.write(b);
                continue;
            }
            String text = line.toString(StandardCharsets.UTF_8);
            line.reset();
            String id = idOf(text);
            if (id != null && text.contains("\"method\"")) {
                out.write(("{\"id\":" + id + ",").getBytes(StandardCharsets.UTF_8));
                out.write(text.contains("\"method\":\"initialize\"") ? INITIALIZE_RESULT : EMPTY_RESULT);
                out.write('\n');
                out.flush();
            } else if (text.contains("\"method\":\"initialized\"") && !immediate && stream != null) {
                blast(stream, out);
            }
        }
        out.flush();
    }

    private static void blast(Path stream, OutputStream out) throws IOException {
        Files.copy(stream, out);
        out.flush();
    }

    /** The numeric id of a request line, found by a plain scan (the same cost for every client measured). */
    static String idOf(String line) {
        int at = line.indexOf("\"id\":");
        if (at < 0) {
            return null;
        }
        int start = at + 5;
        int end = start;
        while (end < line.length() && (Character.isDigit(line.charAt(end)) || line.charAt(end) == '-')) {
            end++;
        }
        return end > start ? line.substring(start, end) : null;
    }
}
