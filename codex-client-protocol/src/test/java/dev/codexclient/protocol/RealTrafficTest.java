package dev.codexclient.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Replays a recorded session with the real codex (JSONL, one {@code {"dir":"sent"|"received","message":{…}}} per
 * line) through the generated types: every message must decode to a known variant, and every response through the
 * result type of the request it answers; re-encoding must give back the input (null ≡ absent, numbers by value).
 *
 * <p>The recordings live at {@code src/test/resources/real-traffic/codex-<version>.jsonl}: the pinned version's
 * ({@code codex.version}) must be there, and the older ones stay, so that what an older server sent still decodes
 * with the types of the pinned one. The system property {@code realTraffic.file} points the test at one other file.
 */
class RealTrafficTest {
    /**
     * Methods codex sends that its schema does not describe. Each entry must really be absent from the generated
     * tables (checked below), so the list cannot hide a decoding bug.
     */
    private static final Set<String> ABSENT_FROM_SCHEMA_PREFIXES = Set.of("codex/event/");
    private static final Path RECORDINGS = Path.of("src/test/resources/real-traffic");

    static Stream<Path> recordings() throws Exception {
        String override = System.getProperty("realTraffic.file");
        if (override != null && !override.isBlank()) {
            return Stream.of(Path.of(override));
        }
        try (Stream<Path> files = Files.list(RECORDINGS)) {
            return files.filter(f -> f.getFileName().toString().matches("codex-.*\\.jsonl")).sorted().toList().stream();
        }
    }

    @Test
    void thePinnedVersionHasARecording() {
        String version = System.getProperty("codex.version", "0.171.0");
        assertThat(RECORDINGS.resolve("codex-" + version + ".jsonl"))
                .as("the real-traffic recording of the pinned codex (see RecordRealTraffic in the testkit)")
                .isRegularFile();
    }

    @ParameterizedTest
    @MethodSource("recordings")
    void recordedSessionDecodesAndReencodes(Path file) throws Exception {
        assertThat(file).as("the real-traffic recording (see the class Javadoc)").isRegularFile();
        for (ObjectMapper mapper : List.of(ProtocolJson.mapper(), new ObjectMapper())) {
            replay(file, mapper);
        }
    }

    private void replay(Path file, ObjectMapper mapper) throws Exception {
        List<String> failures = new ArrayList<>();
        Map<String, Integer> counts = new TreeMap<>();
        Map<String, MethodDescriptor<?, ?>> pendingClient = new HashMap<>();
        Map<String, MethodDescriptor<?, ?>> pendingServer = new HashMap<>();
        int lineNo = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            lineNo++;
            if (line.isBlank()) {
                continue;
            }
            String where = file.getFileName() + ":" + lineNo;
            JsonNode entry = mapper.readTree(line);
            String dir = entry.path("dir").asText();
            JsonNode msg = entry.get("message");
            if (msg == null || !msg.isObject() || !(dir.equals("sent") || dir.equals("received"))) {
                failures.add(where + ": not a {dir, message} entry");
                continue;
            }
            boolean sent = dir.equals("sent");
            boolean hasId = msg.has("id") && !msg.get("id").isNull();
            String method = msg.path("method").textValue();
            try {
                if (method != null && absentFromSchema(method)) {
                    counts.merge("legacy (absent from schema)", 1, Integer::sum);
                    assertAbsent(method, where, failures);
                    continue;
                }
                if (method != null && hasId && sent) {
                    ClientRequest r = check(mapper, msg, ClientRequest.class, where, failures);
                    ClientRequestMethods.byMethod(method).ifPresent(d -> pendingClient.put(key(msg.get("id")), d));
                    counts.merge("client requests", r == null ? 0 : 1, Integer::sum);
                } else if (method != null && hasId) {
                    ServerRequest r = check(mapper, msg, ServerRequest.class, where, failures);
                    ServerRequestMethods.byMethod(method).ifPresent(d -> pendingServer.put(key(msg.get("id")), d));
                    counts.merge("server requests", r == null ? 0 : 1, Integer::sum);
                } else if (method != null && sent) {
                    check(mapper, msg, ClientNotification.class, where, failures);
                    counts.merge("client notifications", 1, Integer::sum);
                } else if (method != null) {
                    check(mapper, msg, ServerNotification.class, where, failures);
                    counts.merge("server notifications", 1, Integer::sum);
                } else if (hasId) {
                    Map<String, MethodDescriptor<?, ?>> pending = sent ? pendingServer : pendingClient;
                    MethodDescriptor<?, ?> d = pending.remove(key(msg.get("id")));
                    if (d == null) {
                        failures.add(where + ": response to an unknown request id " + msg.get("id"));
                    } else if (msg.has("result")) {
                        check(mapper, msg.get("result"), d.resultType(), where + " (result of " + d.method() + ")",
                                failures);
                        counts.merge(sent ? "responses to server requests" : "responses", 1, Integer::sum);
                    } else if (msg.has("error")) {
                        check(mapper, msg.get("error"), JSONRPCErrorError.class, where + " (error of " + d.method() + ")",
                                failures);
                        counts.merge("error responses", 1, Integer::sum);
                    } else {
                        failures.add(where + ": response without result or error");
                    }
                } else {
                    failures.add(where + ": neither request, notification nor response: " + msg);
                }
            } catch (Exception e) {
                failures.add(where + ": " + e);
            }
        }
        System.out.println("real traffic " + file.getFileName() + ": " + counts + ", failures: " + failures.size());
        assertThat(failures).isEmpty();
        assertThat(counts.getOrDefault("client requests", 0)).isPositive();
        assertThat(counts.getOrDefault("server notifications", 0)).isPositive();
    }

    private static boolean absentFromSchema(String method) {
        return ABSENT_FROM_SCHEMA_PREFIXES.stream().anyMatch(method::startsWith);
    }

    private static void assertAbsent(String method, String where, List<String> failures) {
        if (ClientRequestMethods.byMethod(method).isPresent() || ServerRequestMethods.byMethod(method).isPresent()
                || ServerNotificationMethods.byMethod(method).isPresent()
                || ClientNotificationMethods.byMethod(method).isPresent()) {
            failures.add(where + ": " + method + " is listed as absent from the schema but the schema has it");
        }
    }

    private static String key(JsonNode id) {
        return (id.isTextual() ? "s:" : "n:") + id.asText();
    }

    private static <T> T check(ObjectMapper mapper, JsonNode input, Class<T> type, String where, List<String> failures)
            throws Exception {
        T v = mapper.treeToValue(input, type);
        List<String> unrec = SchemaSamples.unrecognized(v);
        if (!unrec.isEmpty()) {
            failures.add(where + ": " + type.getSimpleName() + " fell back to Unrecognized at " + unrec + ": "
                    + abbreviate(input));
            return null;
        }
        JsonNode back = mapper.readTree(mapper.writeValueAsString(v));
        if (!SchemaSamples.normalize(back).equals(SchemaSamples.normalize(input))) {
            failures.add(where + ": " + type.getSimpleName() + " does not re-encode to its input\n  in : "
                    + abbreviate(input) + "\n  out: " + abbreviate(back));
        }
        return v;
    }

    private static String abbreviate(JsonNode n) {
        String s = n.toString();
        return s.length() > 600 ? s.substring(0, 600) + "…" : s;
    }
}
