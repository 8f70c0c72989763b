package dev.codexclient.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.CodexVersion;
import dev.codexclient.drift.SchemaDrift;
import dev.codexclient.drift.internal.ClientApiRequirements;
import dev.codexclient.testkit.CodexBinary;
import dev.codexclient.testkit.IsolatedHome;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The drift report on real codex binaries: the pinned version always, plus every version configured for the
 * compatibility matrix ({@link CompatVersions}). For the versions below, what each lacks of the client API was
 * read off their exported schemas and their answers (see docs/COMPATIBILITY.md). On every other version (npm's
 * latest, one of the matrix the table does not name) the test reads the binary's exported schema itself, apart from
 * the tool, and the tool must name exactly the methods of the client API that schema lacks.
 */
@Tag("real-codex")
@Timeout(300)
class SchemaDriftRealCodexTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** version → the methods the client API relies on that it lacks. */
    private static final Map<String, List<String>> KNOWN = Map.of(
            "0.98.0", List.of("thread/revert", "thread/unsubscribe", "turn/steer", "item/permissions/requestApproval",
                    "mcpServer/elicitation/request", "serverRequest/resolved"),
            "0.120.0", List.of("thread/revert"),
            "0.140.0", List.of("thread/revert"));

    static List<String> versions() {
        Set<String> versions = new LinkedHashSet<>();
        versions.add(CodexVersion.pinned().text());
        versions.addAll(CompatVersions.configured());
        return new ArrayList<>(versions);
    }

    private record Run(int exit, String out, String err) {
    }

    private static Run drift(Path codex, String... options) {
        List<String> args = new ArrayList<>(List.of("--codex", codex.toString()));
        args.addAll(List.of(options));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = SchemaDrift.run(args.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @ParameterizedTest(name = "codex {0}")
    @MethodSource("versions")
    void reportsWhatTheBinaryLacks(String version, @TempDir Path dir) throws IOException {
        Path codex = CodexBinary.version(version);
        Path jsonFile = dir.resolve("drift.json");

        Run run = drift(codex, "--json-file", jsonFile.toString());

        assertThat(run.err()).isEmpty();
        JsonNode report = JSON.readTree(jsonFile.toFile());
        assertThat(report.path("compared").path("codexVersion").asText()).isEqualTo(version);
        assertThat(report.path("sdk").path("codexVersion").asText()).isEqualTo(CodexVersion.pinned().text());
        assertThat(run.out()).startsWith("Protocol drift: codex " + version + " (" + codex + ")");
        List<String> missing = new ArrayList<>();
        report.path("missing").forEach(m -> missing.add(m.path("method").asText()));
        if (!version.equals(CodexVersion.pinned().text())) {
            // Known or not, what the binary itself publishes decides what it lacks.
            assertThat(missing).as("the methods of the client API codex %s does not publish", version)
                    .containsExactlyInAnyOrderElementsOf(lacking(codex, dir.resolve("exported")));
        }

        if (version.equals(CodexVersion.pinned().text())) {
            assertThat(run.exit()).isEqualTo(SchemaDrift.COMPATIBLE);
            assertThat(report.path("identical").asBoolean()).as("the pinned binary publishes the vendored schema")
                    .isTrue();
            assertThat(run.out()).contains("No differences");
        } else if (KNOWN.containsKey(version)) {
            assertThat(missing).containsExactlyElementsOf(KNOWN.get(version));
            assertThat(run.exit()).isEqualTo(SchemaDrift.INCOMPATIBLE);
            assertThat(run.out()).contains("INCOMPATIBLE: codex " + version + " lacks " + missing.size());
            missing.forEach(m -> assertThat(run.out()).contains(m));
            assertThat(drift(codex, "--allow-missing", String.join(",", missing)).exit())
                    .isEqualTo(SchemaDrift.COMPATIBLE);
        } else {
            assertThat(run.exit()).isEqualTo(missing.isEmpty() ? SchemaDrift.COMPATIBLE : SchemaDrift.INCOMPATIBLE);
            assertThat(run.out()).contains(missing.isEmpty() ? "OK: codex " + version
                    : "INCOMPATIBLE: codex " + version + " lacks " + missing.size());
            missing.forEach(m -> assertThat(run.out()).contains(m));
            if (!missing.isEmpty()) {
                assertThat(drift(codex, "--allow-missing", String.join(",", missing)).exit())
                        .isEqualTo(SchemaDrift.COMPATIBLE);
            }
        }
    }

    /** The schema unions of each kind of message, by the name the exported bundle gives them. */
    private static final Map<ClientApiRequirements.Kind, String> UNIONS = Map.of(
            ClientApiRequirements.Kind.CLIENT_REQUEST, "ClientRequest",
            ClientApiRequirements.Kind.CLIENT_NOTIFICATION, "ClientNotification",
            ClientApiRequirements.Kind.SERVER_NOTIFICATION, "ServerNotification",
            ClientApiRequirements.Kind.SERVER_REQUEST, "ServerRequest");

    /**
     * The methods the client API relies on that {@code codex}'s own exported schema does not have, read here from
     * {@code generate-json-schema}'s bundle with nothing of the drift tool but its list of what the API relies on.
     */
    private static List<String> lacking(Path codex, Path out) throws IOException {
        JsonNode definitions;
        try (IsolatedHome home = IsolatedHome.create()) {
            ProcessBuilder export = new ProcessBuilder(codex.toString(), "app-server", "generate-json-schema",
                    "--experimental", "--out", out.toString()).redirectErrorStream(true);
            home.applyEnvironment(export.environment());
            Process p = export.start();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("generate-json-schema ends").isTrue();
            assertThat(p.exitValue()).as("generate-json-schema: %s", output).isZero();
            definitions = JSON.readTree(out.resolve("codex_app_server_protocol.schemas.json").toFile())
                    .path("definitions");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        List<String> lacking = new ArrayList<>();
        for (ClientApiRequirements.Requirement r : ClientApiRequirements.all()) {
            Set<String> published = new LinkedHashSet<>();
            definitions.path(UNIONS.get(r.kind())).path("oneOf").forEach(variant -> {
                JsonNode method = variant.path("properties").path("method");
                published.add(method.has("const") ? method.path("const").asText() : method.path("enum").path(0).asText());
            });
            assertThat(published).as("the %s union of codex's schema", UNIONS.get(r.kind())).isNotEmpty();
            if (!published.contains(r.method())) {
                lacking.add(r.method());
            }
        }
        return lacking;
    }
}
