package dev.codexclient.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Writes the JSONL streams the cross-process benchmarks replay, in the shapes codex really sends. */
public final class Streams {
    /** Deltas cycle through these: real token-sized pieces, including non-ASCII and characters JSON escapes. */
    static final String[] TOKENS = {"Hello", ",", " world", "!", " Grüße", " —", " \"quoted\"", "\n",
        " привет", " 你好", " the", " tests", " pass", ".", " fn", "()", " {", "}\n", "\t", " 🚀"};

    private Streams() {
    }

    /** {@code count} {@code item/agentMessage/delta} notifications shaped like codex's. */
    public static long agentMessageDeltas(Recording recording, Path file, int count) {
        ObjectNode template = (ObjectNode) recording.first("item/agentMessage/delta");
        ObjectNode params = (ObjectNode) template.get("params");
        long emitted = template.path("emittedAtMs").asLong();
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16)) {
            for (int i = 0; i < count; i++) {
                params.put("delta", TOKENS[i % TOKENS.length]);
                params.put("itemId", "msg_" + (i / 500));
                template.put("emittedAtMs", emitted + i / 50);
                out.write(Recording.bytes(template));
                out.write('\n');
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return size(file);
    }

    /** The recorded notifications, repeated until {@code count} lines are written. */
    public static long recordedMix(Recording recording, Path file, int count) {
        List<byte[]> lines = recording.notifications();
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16)) {
            for (int i = 0; i < count; i++) {
                out.write(lines.get(i % lines.size()));
                out.write('\n');
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return size(file);
    }

    /**
     * {@code item/commandExecution/outputDelta} notifications carrying {@code totalDeltaBytes} of command output
     * in chunks of {@code chunk} characters (a build log: mostly ASCII, some escapes).
     *
     * @return the number of lines written
     */
    public static int commandOutputFlood(Recording recording, Path file, long totalDeltaBytes, int chunk) {
        JsonNode delta = recording.first("item/agentMessage/delta").get("params");
        StringBuilder text = new StringBuilder(chunk);
        String logLine = "[INFO] Compiling 42 source files to /tmp/workspace/target/classes \"ok\"\t✓\n";
        while (text.length() < chunk) {
            text.append(logLine);
        }
        text.setLength(chunk);
        ObjectNode message = Recording.JSONNodes.object();
        message.put("method", "item/commandExecution/outputDelta");
        ObjectNode params = message.putObject("params");
        params.put("threadId", delta.get("threadId").asText());
        params.put("turnId", delta.get("turnId").asText());
        params.put("itemId", "call_flood");
        params.put("delta", text.toString());
        byte[] line = Recording.bytes(message);
        int lines = (int) Math.max(1, totalDeltaBytes / chunk);
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16)) {
            for (int i = 0; i < lines; i++) {
                out.write(line);
                out.write('\n');
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return lines;
    }

    static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
