package dev.codexclient.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.benchmarks.Results.Bound;
import dev.codexclient.benchmarks.Results.Target;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The machine-readable record of one run, {@code bench-<stamp>.json} next to its table: whether it was complete
 * (every figure, full sizes), its raw numbers, and every target with its measured value and bound.
 *
 * <pre>{@code
 * {"stamp": "20261124-013000", "complete": true, "smoke": false, "figures": [],
 *  "numbers": {"roundTrip.sdk.p50Micros": 44.1, ...},
 *  "targets": [{"id": "roundTrip.p50", "description": "...", "value": 1.32, "direction": "AT_MOST",
 *               "bound": 1.5, "unit": "×", "met": true}, ...]}
 * }</pre>
 */
record RunFile(String stamp, boolean complete, boolean smoke, Set<Integer> figures, Map<String, Double> numbers,
               List<Target> targets) {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    RunFile {
        figures = Set.copyOf(figures);
        numbers = Map.copyOf(numbers);
        targets = List.copyOf(targets);
    }

    static void write(Path file, RunFile run) throws IOException {
        ObjectNode root = JSON.createObjectNode();
        root.put("stamp", run.stamp()).put("complete", run.complete()).put("smoke", run.smoke());
        ArrayNode figures = root.putArray("figures");
        new TreeSet<>(run.figures()).forEach(figures::add);
        ObjectNode numbers = root.putObject("numbers");
        new java.util.TreeMap<>(run.numbers()).forEach(numbers::put);
        ArrayNode targets = root.putArray("targets");
        for (Target t : run.targets()) {
            targets.addObject().put("id", t.id()).put("description", t.description()).put("value", t.value())
                    .put("direction", t.direction().name()).put("bound", t.bound()).put("unit", t.unit())
                    .put("met", t.met());
        }
        Files.writeString(file, JSON.writeValueAsString(root) + "\n");
    }

    /**
     * Reads a run file.
     *
     * @throws IOException when the file cannot be read or is not a run file (a missing member is named)
     */
    static RunFile read(Path file) throws IOException {
        JsonNode root = JSON.readTree(file.toFile());
        if (root == null || !root.isObject()) {
            throw new IOException(file + " is not a benchmark run file (no JSON object)");
        }
        Set<Integer> figures = new TreeSet<>();
        required(file, root, "figures").forEach(f -> figures.add(f.asInt()));
        Map<String, Double> numbers = new LinkedHashMap<>();
        required(file, root, "numbers").fields().forEachRemaining(e -> numbers.put(e.getKey(),
                e.getValue().asDouble()));
        List<Target> targets = new ArrayList<>();
        for (JsonNode t : required(file, root, "targets")) {
            Bound direction;
            try {
                direction = Bound.valueOf(required(file, t, "direction").asText());
            } catch (IllegalArgumentException e) {
                throw new IOException(file + ": unknown target direction " + t.get("direction"), e);
            }
            targets.add(new Target(required(file, t, "id").asText(), required(file, t, "description").asText(),
                    required(file, t, "value").asDouble(), direction, required(file, t, "bound").asDouble(),
                    required(file, t, "unit").asText()));
        }
        return new RunFile(required(file, root, "stamp").asText(), required(file, root, "complete").asBoolean(),
                root.path("smoke").asBoolean(false), figures, numbers, targets);
    }

    private static JsonNode required(Path file, JsonNode node, String member) throws IOException {
        JsonNode value = node.get(member);
        if (value == null || value.isNull()) {
            throw new IOException(file + ": no \"" + member + "\" in " + node);
        }
        return value;
    }
}
