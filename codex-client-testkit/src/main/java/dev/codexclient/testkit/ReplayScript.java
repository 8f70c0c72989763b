package dev.codexclient.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.testkit.internal.fake.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A recorded session loaded from a {@link WireRecorder} file. */
final class ReplayScript {

    /** One recorded line: {@code sent} by the client or {@code received} by it; raw holds a non-JSON line. */
    record Entry(int lineNumber, boolean sentByClient, JsonNode message, String raw) {
    }

    final Path source;
    final List<Entry> entries;

    private ReplayScript(Path source, List<Entry> entries) {
        this.source = source;
        this.entries = List.copyOf(entries);
    }

    static ReplayScript load(Path file) throws IOException {
        List<Entry> entries = new ArrayList<>();
        try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            int number = 0;
            while ((line = reader.readLine()) != null) {
                number++;
                if (line.isBlank()) {
                    continue;
                }
                JsonNode node;
                try {
                    node = Json.MAPPER.readTree(line);
                } catch (IOException e) {
                    throw new IOException(file + ":" + number + ": not JSON: " + e.getMessage(), e);
                }
                String dir = node.path("dir").asText("");
                if (!dir.equals("sent") && !dir.equals("received")) {
                    throw new IOException(file + ":" + number + ": \"dir\" must be \"sent\" or \"received\"");
                }
                JsonNode message = node.get("message");
                JsonNode raw = node.get("raw");
                if (message == null && (raw == null || !raw.isTextual())) {
                    if (node.has("oversized")) {
                        continue; // the recorder saw an oversized line but kept no content to replay
                    }
                    throw new IOException(file + ":" + number + ": needs \"message\" or \"raw\"");
                }
                entries.add(new Entry(number, dir.equals("sent"), message, raw == null ? null : raw.asText()));
            }
        }
        return new ReplayScript(file, entries);
    }
}
