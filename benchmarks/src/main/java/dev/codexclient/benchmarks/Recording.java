package dev.codexclient.benchmarks;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A session recorded from the real codex 0.169.0: the messages the server sent, as the JSON bytes a client reads.
 * {@link #load()} is the three-turn session of the protocol module's real-traffic fixture (a copy);
 * {@link #load(String)} of {@link #SCENARIOS} the larger one {@link RecordSession} writes.
 */
public final class Recording {
    static final String RESOURCE = "/real-traffic/codex-0.169.0.jsonl";
    /** The larger recording of {@link RecordSession}: every scenario, several thousand notifications. */
    static final String SCENARIOS = "/real-traffic/codex-0.169.0-scenarios.jsonl";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<JsonNode> received;

    private Recording(List<JsonNode> received) {
        this.received = received;
    }

    /** Loads the recording from the class path. */
    public static Recording load() {
        return load(RESOURCE);
    }

    /** Loads a recording in the {@code WireRecorder} format from the class path. */
    public static Recording load(String resource) {
        try (InputStream in = Recording.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + resource);
            }
            List<JsonNode> received = new ArrayList<>();
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.isBlank()) {
                    continue;
                }
                JsonNode entry = JSON.readTree(line);
                if ("received".equals(entry.path("dir").asText())) {
                    received.add(entry.get("message"));
                }
            }
            return new Recording(List.copyOf(received));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every notification the server sent (method, no id), as wire bytes without the newline. */
    public List<byte[]> notifications() {
        List<byte[]> out = new ArrayList<>();
        for (JsonNode m : received) {
            if (m.has("method") && !m.has("id")) {
                out.add(bytes(m));
            }
        }
        return out;
    }

    /** The first received message with this method, as a tree (a template for generated streams). */
    public JsonNode first(String method) {
        for (JsonNode m : received) {
            if (method.equals(m.path("method").asText())) {
                return m.deepCopy();
            }
        }
        throw new IllegalStateException("the recording has no " + method);
    }

    /** The result of the response to the request with this id. */
    public JsonNode result(long id) {
        for (JsonNode m : received) {
            if (!m.has("method") && m.path("id").asLong(-1) == id && m.has("result")) {
                return m.get("result").deepCopy();
            }
        }
        throw new IllegalStateException("the recording has no result for id " + id);
    }

    /** Tree factory shared by the stream writers. */
    static final class JSONNodes {
        private JSONNodes() {
        }

        static com.fasterxml.jackson.databind.node.ObjectNode object() {
            return JSON.createObjectNode();
        }
    }

    static byte[] bytes(JsonNode node) {
        // The tree writes itself rather than through a serializer look-up: the canned server answers the cold-start
        // handshake with this, and its share of that JVM's start-up should be as small as it can be.
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator g = JSON.getFactory().createGenerator(out)) {
            node.serialize(g, JSON.getSerializerProviderInstance());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
