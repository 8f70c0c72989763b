package dev.codexclient.drift;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.drift.internal.SchemaSources;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Iterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line on schemas derived from the pinned one, and on a stand-in codex script; the real binaries are
 * in {@code SchemaDriftRealCodexTest} (integration tests).
 */
class SchemaDriftTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private record Run(int exit, String out, String err) {
    }

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = SchemaDrift.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** The pinned schema with the given methods taken out of ClientRequest and one extra method added. */
    private Path pinnedWithout(String extraMethod, String... removed) throws IOException {
        ObjectNode bundle = (ObjectNode) SchemaSources.pinned();
        ArrayNode requests = (ArrayNode) bundle.path("definitions").path("ClientRequest").path("oneOf");
        for (Iterator<JsonNode> it = requests.elements(); it.hasNext(); ) {
            String method = it.next().path("properties").path("method").path("enum").path(0).asText();
            for (String r : removed) {
                if (r.equals(method)) {
                    it.remove();
                }
            }
        }
        if (extraMethod != null) {
            ObjectNode extra = requests.addObject();
            extra.put("type", "object");
            extra.putArray("required").add("id").add("method");
            extra.putObject("properties").putObject("method").put("type", "string").putArray("enum").add(extraMethod);
        }
        Path file = dir.resolve("schema.json");
        JSON.writeValue(file.toFile(), bundle);
        return file;
    }

    @Test
    void untypedMethodsAndTheDecisionsOfAMoveAreListedWhenAsked() throws IOException {
        Path file = pinnedWithout("acme/newThing", "thread/realtime/list");
        ObjectNode bundle = (ObjectNode) JSON.readTree(file.toFile());
        ObjectNode project = (ObjectNode) bundle.path("definitions").path("v2").path("Project").path("properties");
        assertThat(project.remove("name")).as("Project.name in the pinned schema").isNotNull();
        JSON.writeValue(file.toFile(), bundle);

        Run plain = run("--schema", file.toString());
        assertThat(plain.out()).doesNotContain("does not type").doesNotContain("To decide");

        Run r = run("--schema", file.toString(), "--untyped", "--decisions", "--json-file",
                dir.resolve("r.json").toString());
        assertThat(r.exit()).isEqualTo(SchemaDrift.COMPATIBLE);
        assertThat(r.out()).contains("Methods this SDK does not type: 1 ")
                .contains("  client request: acme/newThing\n")
                .contains("To decide before moving the pin to the schema schema.json:")
                .contains("  removed client request: thread/realtime/list\n")
                .contains("    Project: -field name\n");
        JsonNode json = JSON.readTree(dir.resolve("r.json").toFile());
        assertThat(json.path("untyped").path("client request")).extracting(JsonNode::asText)
                .containsExactly("acme/newThing");

        Path same = dir.resolve(SchemaSources.BUNDLE);
        JSON.writeValue(same.toFile(), SchemaSources.pinned());
        Run none = run("--schema", same.toString(), "--untyped", "--decisions");
        assertThat(none.out()).contains("Methods this SDK does not type: none")
                .contains("nothing removed or reshaped: additions only");
    }

    @Test
    void thePinnedSchemaAgainstItselfIsCompatibleAndIdentical() throws IOException {
        Path file = dir.resolve(SchemaSources.BUNDLE);
        JSON.writeValue(file.toFile(), SchemaSources.pinned());

        Run r = run("--schema", dir.toString());

        assertThat(r.exit()).isEqualTo(SchemaDrift.COMPATIBLE);
        assertThat(r.out()).contains("OK: the schema " + dir.getFileName() + " offers every method the client API"
                + " relies on.").contains("No differences");
        assertThat(r.err()).isEmpty();
    }

    @Test
    void lackingAMethodTheClientApiUsesFailsAndNamesIt() throws IOException {
        Run r = run("--schema", pinnedWithout(null, "thread/revert", "turn/steer").toString());

        assertThat(r.exit()).isEqualTo(SchemaDrift.INCOMPATIBLE);
        assertThat(r.out()).contains("lacks 2 methods the client API relies on:")
                .containsPattern("client request +thread/revert +CodexThread.revertTo")
                .containsPattern("client request +turn/steer +CodexTurn.steer")
                .contains("Client requests: 2 missing from");
    }

    @Test
    void allowedMissingMethodsDoNotFail() throws IOException {
        Path schema = pinnedWithout(null, "thread/revert");

        assertThat(run("--schema", schema.toString(), "--allow-missing", "thread/revert").exit())
                .isEqualTo(SchemaDrift.COMPATIBLE);
        assertThat(run("--schema", schema.toString(), "--allow-missing", "thread/revert", "--strict").exit())
                .as("--strict: any drift fails").isEqualTo(SchemaDrift.INCOMPATIBLE);
    }

    @Test
    void aNewerCodexWithExtraMethodsIsCompatibleUnlessStrict() throws IOException {
        Path schema = pinnedWithout("thread/teleport");

        Run r = run("--schema", schema.toString());
        assertThat(r.exit()).isEqualTo(SchemaDrift.COMPATIBLE);
        assertThat(r.out()).contains("  + thread/teleport");
        assertThat(run("--schema", schema.toString(), "--strict").exit()).isEqualTo(SchemaDrift.INCOMPATIBLE);
    }

    @Test
    void jsonForCi() throws IOException {
        Run r = run("--schema", pinnedWithout("thread/teleport", "thread/revert").toString(), "--json");

        assertThat(r.exit()).isEqualTo(SchemaDrift.INCOMPATIBLE);
        JsonNode json = JSON.readTree(r.out());
        assertThat(json.path("compatible").asBoolean()).isFalse();
        assertThat(json.path("missing").get(0).path("method").asText()).isEqualTo("thread/revert");
        assertThat(json.path("methods").path("clientRequests").path("added").get(0).asText())
                .isEqualTo("thread/teleport");
        assertThat(json.path("compared").path("codexVersion").isNull()).isTrue();
    }

    @Test
    void textOnTheConsoleAndJsonIntoAFile() throws IOException {
        Path report = dir.resolve("report.json");

        Run r = run("--schema", pinnedWithout(null, "turn/steer").toString(), "--json-file", report.toString());

        assertThat(r.exit()).isEqualTo(SchemaDrift.INCOMPATIBLE);
        assertThat(r.out()).startsWith("Protocol drift: ");
        assertThat(JSON.readTree(report.toFile()).path("missing").get(0).path("method").asText())
                .isEqualTo("turn/steer");
        assertThat(run("--json", "--json-file", report.toString()).err()).contains("exclude each other");
    }

    @Test
    void usageErrorsAndUnreadableSchemasExitWithTwo() throws IOException {
        Files.writeString(dir.resolve("not-a-bundle.json"), "{\"type\": \"object\"}");
        Files.writeString(dir.resolve("broken.json"), "{");

        assertThat(run("--bogus").exit()).isEqualTo(SchemaDrift.ERROR);
        assertThat(run("--schema").exit()).isEqualTo(SchemaDrift.ERROR);
        assertThat(run("--schema", dir.resolve("absent.json").toString()).err()).contains("does not exist");
        assertThat(run("--allow-missing", "thread/teleport").err())
                .contains("thread/teleport is not a method the client API relies on");
        assertThat(run("--timeout", "0").err()).contains("positive number of seconds");
        assertThat(run("--schema", dir.resolve("not-a-bundle.json").toString()))
                .satisfies(r -> assertThat(r.exit()).isEqualTo(SchemaDrift.ERROR))
                .satisfies(r -> assertThat(r.err()).contains("not a codex app-server schema bundle"));
        assertThat(run("--schema", dir.resolve("broken.json").toString()).exit()).isEqualTo(SchemaDrift.ERROR);
        assertThat(run("--codex", dir.toString()).err()).contains("is not an executable file");
        assertThat(run("--schema", dir.toString(), "--schema", dir.toString(), "--codex", "/bin/sh").err())
                .contains("exclude each other");
        Run help = run("--help");
        assertThat(help.exit()).isZero();
        assertThat(help.out()).startsWith("Usage: SchemaDrift").contains("Exit status");
    }

    @Test
    @DisabledOnOs(OS.WINDOWS)
    void exportsFromACodexExecutableInAPrivateHome() throws IOException {
        Path schema = dir.resolve("pinned.json");
        JSON.writeValue(schema.toFile(), SchemaSources.pinned());
        Path seen = dir.resolve("seen.txt");
        Path codex = script("codex", """
                #!/bin/sh
                echo "HOME=$HOME CODEX_HOME=$CODEX_HOME" >> '%s'
                if [ "$1" = "--version" ]; then echo "codex-cli 0.169.0"; exit 0; fi
                [ "$1 $2" = "app-server generate-json-schema" ] || exit 3
                [ "$3" = "--experimental" ] && [ "$4" = "--out" ] || exit 4
                mkdir -p "$5" && cp '%s' "$5/codex_app_server_protocol.schemas.json"
                """.formatted(seen, schema));

        Run r = run("--codex", codex.toString());

        assertThat(r.exit()).isEqualTo(SchemaDrift.COMPATIBLE);
        assertThat(r.out()).startsWith("Protocol drift: codex 0.169.0 (" + codex + ")").contains("No differences");
        // Both runs saw a private home, the same for both, and it is gone afterwards.
        var lines = Files.readAllLines(seen);
        assertThat(lines).hasSize(2).allSatisfy(l -> assertThat(l)
                .matches("HOME=(\\S+) CODEX_HOME=\\1").doesNotContain(System.getProperty("user.home") + " "));
        Path home = Path.of(lines.get(0).substring("HOME=".length(), lines.get(0).indexOf(' ')));
        assertThat(home.getFileName().toString()).isEqualTo("home");
        assertThat(home).doesNotExist();
    }

    @Test
    @DisabledOnOs(OS.WINDOWS)
    void aCodexWithoutExperimentalIsAskedWithoutIt() throws IOException {
        Path schema = dir.resolve("pinned.json");
        JSON.writeValue(schema.toFile(), SchemaSources.pinned());
        Path codex = script("codex", """
                #!/bin/sh
                if [ "$1" = "--version" ]; then echo "codex-cli 0.90.0"; exit 0; fi
                if [ "$3" = "--experimental" ]; then
                  echo "error: unexpected argument '--experimental' found" >&2; exit 2
                fi
                mkdir -p "$4" && cp '%s' "$4/codex_app_server_protocol.schemas.json"
                """.formatted(schema));

        Run r = run("--codex", codex.toString());

        assertThat(r.exit()).isEqualTo(SchemaDrift.COMPATIBLE);
        assertThat(r.err()).contains("does not know --experimental");
        assertThat(r.out()).startsWith("Protocol drift: codex 0.90.0");
    }

    @Test
    @DisabledOnOs(OS.WINDOWS)
    void aFailingCodexIsAnErrorWithItsOutput() throws IOException {
        Path codex = script("codex", """
                #!/bin/sh
                if [ "$1" = "--version" ]; then echo "codex-cli 0.169.0"; exit 0; fi
                echo "boom: cannot write schema" >&2; exit 1
                """);

        Run r = run("--codex", codex.toString());

        assertThat(r.exit()).isEqualTo(SchemaDrift.ERROR);
        assertThat(r.err()).contains("failed with exit code 1").contains("boom: cannot write schema");
    }

    private Path script(String name, String text) throws IOException {
        Path file = dir.resolve(name);
        Files.writeString(file, text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
        return file;
    }
}
