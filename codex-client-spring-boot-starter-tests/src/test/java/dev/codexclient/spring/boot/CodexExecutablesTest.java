package dev.codexclient.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.CodexVersion;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where the starter finds codex when no property names it: the PATH, then the pinned cache; never an install. */
class CodexExecutablesTest {

    private static Path executable(Path file) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, "#!/bin/sh\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        return file;
    }

    @Test
    void thePathComesFirst(@TempDir Path dir) throws IOException {
        Path onPath = executable(dir.resolve("bin/codex"));
        executable(new CodexExecutables(null, dir.resolve("cache")).pinned());
        String path = dir.resolve("empty") + File.pathSeparator + dir.resolve("bin");
        assertThat(new CodexExecutables(path, dir.resolve("cache")).find()).isEqualTo(onPath);
    }

    @Test
    void thenThePinnedCodexInTheCache(@TempDir Path dir) throws IOException {
        CodexExecutables executables = new CodexExecutables(dir.resolve("bin").toString(), dir.resolve("cache"));
        Path pinned = executable(executables.pinned());
        assertThat(pinned).isEqualTo(dir.resolve("cache").resolve(CodexVersion.pinned().text())
                .resolve("node_modules/.bin/codex"));
        assertThat(executables.find()).isEqualTo(pinned);
    }

    @Test
    void withoutEitherTheAdviceIsInPropertyTermsAndNothingIsInstalled(@TempDir Path dir) {
        CodexExecutables executables = new CodexExecutables(dir.resolve("bin").toString(), dir.resolve("cache"));
        assertThatThrownBy(executables::find).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("codex.binary=/path/to/codex")
                .hasMessageContaining(executables.pinned().toString())
                .hasMessageContaining("codex.enabled=false");
        assertThat(dir.resolve("cache")).doesNotExist();
    }

    @Test
    void theClientsAdviceForJavaCodeIsLeftToTheProperties() {
        String message = "Executable '/nonexistent/bin/codex' does not exist. Install the Codex CLI with `npm install "
                + "-g @openai/codex`, or point the SDK at the binary with StdioTransport.builder().executable(Path.of("
                + "\"/path/to/codex\")).";
        assertThat(CodexClientFailureAnalyzer.inPropertyTerms(message))
                .isEqualTo("Executable '/nonexistent/bin/codex' does not exist.");
    }
}
