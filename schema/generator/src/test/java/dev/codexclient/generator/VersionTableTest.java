package dev.codexclient.generator;

import static dev.codexclient.generator.Model.MethodDecl;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The method lists of the checked versions, what the generator makes of them, and the documents it writes. */
class VersionTableTest {
    @TempDir
    Path dir;

    private void list(String version, String... lines) throws Exception {
        Files.createDirectories(dir.resolve("methods"));
        Files.writeString(dir.resolve("methods").resolve(version + ".txt"),
                "# codex " + version + "\n" + String.join("\n", lines) + "\n");
    }

    @Test
    void versionsAreOrderedTheSemanticWayAndEachMethodKnowsItsOwn() throws Exception {
        list("0.98.0", "client-request initialize", "client-request thread/rollback", "notification a/b");
        list("0.120.0", "client-request initialize", "client-request thread/rollback", "client-request x/y");
        list("0.148.0-alpha.1", "client-request initialize", "client-request x/y");
        list("0.148.0", "client-request initialize", "client-request thread/revert", "notification a/b");
        VersionTable t = VersionTable.read(dir.resolve("methods"));
        assertThat(t.versions()).containsExactly("0.98.0", "0.120.0", "0.148.0-alpha.1", "0.148.0");
        assertThat(t.versionsOf("ClientRequest", "initialize")).hasSize(4);
        assertThat(t.versionsOf("ClientRequest", "thread/revert")).containsExactly("0.148.0");
        assertThat(t.versionsOf("ClientRequest", "thread/rollback")).containsExactly("0.98.0", "0.120.0");
        assertThat(t.versionsOf("ServerNotification", "a/b")).containsExactly("0.98.0", "0.148.0");
        assertThat(t.versionsOf("ServerRequest", "a/b")).isEmpty();
    }

    @Test
    void aMalformedListOrAMisnamedFileFails() throws Exception {
        list("0.98.0", "client-request initialize", "request thread/start");
        assertThatThrownBy(() -> VersionTable.read(dir.resolve("methods")))
                .isInstanceOf(GeneratorException.class).hasMessageContaining("0.98.0.txt:3");
        Files.delete(dir.resolve("methods/0.98.0.txt"));
        Files.writeString(dir.resolve("methods/latest.txt"), "client-request initialize\n");
        assertThatThrownBy(() -> VersionTable.read(dir.resolve("methods")))
                .isInstanceOf(GeneratorException.class).hasMessageContaining("VERSION.txt");
    }

    @Test
    void thePinnedListMustNameThePinnedSchemasMethods() throws Exception {
        var defs = Generator.flatten(new ObjectMapper().readTree("""
                {"definitions": {
                  "ClientRequest": {"oneOf": [{"properties": {"method": {"enum": ["initialize"]}}}]},
                  "ServerRequest": {"oneOf": []}, "ServerNotification": {"oneOf": []},
                  "ClientNotification": {"oneOf": []}}}"""), "test");
        list("0.171.0", "client-request initialize", "client-request thread/gone");
        VersionTable t = VersionTable.read(dir.resolve("methods"));
        assertThatThrownBy(() -> t.checkPinned("0.171.0", defs)).isInstanceOf(GeneratorException.class)
                .hasMessageContaining("schema/method-lists.sh 0.171.0");
        assertThatThrownBy(() -> t.checkPinned("0.172.0", defs)).isInstanceOf(GeneratorException.class)
                .hasMessageContaining("no list of the pinned codex 0.172.0");
        list("0.171.0", "client-request initialize");
        VersionTable.read(dir.resolve("methods")).checkPinned("0.171.0", defs);
        assertThat(MethodLists.of("0.171.0", defs).text()).isEqualTo("""
                # codex 0.171.0: the methods of its exported schema (schema/method-lists.sh)
                client-request initialize
                """);
    }

    @Test
    void theJavadocSentenceSaysSinceUntilAndGaps() {
        List<String> checked = List.of("0.98.0", "0.120.0", "0.169.0", "0.171.0");
        assertThat(Docs.versions(List.of("0.98.0", "0.120.0", "0.169.0", "0.171.0"), checked))
                .startsWith("Since codex 0.98.0 or earlier.");
        assertThat(Docs.versions(List.of("0.169.0", "0.171.0"), checked))
                .startsWith("Since codex 0.169.0 (not in 0.120.0).").doesNotContain("Until");
        assertThat(Docs.versions(List.of("0.120.0", "0.169.0"), checked))
                .startsWith("Since codex 0.120.0 (not in 0.98.0). Until codex 0.169.0 (not in 0.171.0).");
        assertThat(Docs.versions(List.of("0.98.0", "0.169.0"), checked)).contains("Not in codex 0.120.0.");
        assertThat(Docs.versions(null, checked)).isEmpty();
    }

    @Test
    void theDocumentsGetTheTableAndTheMarkedCells() throws Exception {
        list("0.98.0", "client-request initialize", "server-request time/read");
        list("0.148.0", "client-request initialize", "client-request thread/revert", "server-request time/read");
        list("0.171.0", "client-request initialize", "client-request thread/revert");
        VersionTable t = VersionTable.read(dir.resolve("methods"));
        MethodDecl revert = decl("thread/revert", t.versionsOf("ClientRequest", "thread/revert"));
        MethodDecl init = decl("initialize", t.versionsOf("ClientRequest", "initialize"));
        MethodDecl time = decl("time/read", t.versionsOf("ServerRequest", "time/read"));
        VersionDocs docs = new VersionDocs(t, Map.of("ClientRequest", List.of(revert, init),
                "ServerRequest", List.of(time)));
        assertThat(docs.page())
                .contains("| `initialize` | 0.98.0 or earlier |  |  |")
                .contains("| `thread/revert` | 0.148.0 |  |  |")
                .contains("| `time/read` | 0.98.0 or earlier | 0.148.0 |  |")
                .contains("1 of 2 are in every checked version.");
        String page = "| `thread/revert` | <!--since client-request thread/revert-->old<!--/since--> |\n"
                + "| `time/read` | <!--since server-request time/read--><!--/since--> |\n";
        assertThat(docs.fill(page, "p.md")).isEqualTo(
                "| `thread/revert` | <!--since client-request thread/revert-->0.148.0<!--/since--> |\n"
                        + "| `time/read` | <!--since server-request time/read-->0.98.0 or earlier, until 0.148.0"
                        + "<!--/since--> |\n");
        assertThatThrownBy(() -> docs.fill("<!--since client-request nope/nope-->x<!--/since-->", "p.md"))
                .isInstanceOf(GeneratorException.class).hasMessageContaining("nope/nope");
    }

    private static MethodDecl decl(String method, List<String> versions) {
        return new MethodDecl(method, "V", "V", null, Model.ParamsKind.NONE, null, false, false, null, versions);
    }
}
