package dev.codexclient.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CodexBinaryTest {

    @TempDir
    Path dir;

    private final String previous = System.getProperty("codex.binary");

    @AfterEach
    void restore() {
        if (previous == null) {
            System.clearProperty("codex.binary");
        } else {
            System.setProperty("codex.binary", previous);
        }
    }

    private Path script(String name, String body) throws Exception {
        Path file = dir.resolve(name);
        Files.writeString(file, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        return file;
    }

    @Test
    void theSystemPropertyWins() throws Exception {
        Path fake = script("my-codex", "echo codex-cli 9.8.7");
        System.setProperty("codex.binary", fake.toString());

        assertThat(CodexBinary.find()).isEqualTo(fake);
        assertThat(CodexBinary.versionOf(fake)).isEqualTo("9.8.7");
    }

    @Test
    void aSystemPropertyNamingNoExecutableIsAClearError() throws Exception {
        Path notExecutable = Files.writeString(dir.resolve("plain"), "x");
        System.setProperty("codex.binary", notExecutable.toString());

        assertThatThrownBy(CodexBinary::find).isInstanceOf(CodexBinaryUnavailableException.class)
                .hasMessageContaining("codex.binary").hasMessageContaining("not an executable");
    }

    @Test
    void versionOfReportsFailuresClearly() throws Exception {
        assertThatThrownBy(() -> CodexBinary.versionOf(script("silent", "echo hello")))
                .isInstanceOf(CodexBinaryUnavailableException.class).hasMessageContaining("printed no version");
        assertThatThrownBy(() -> CodexBinary.versionOf(script("broken", "echo oops >&2; exit 3")))
                .isInstanceOf(CodexBinaryUnavailableException.class).hasMessageContaining("exit code 3")
                .hasMessageContaining("oops");
        assertThatThrownBy(() -> CodexBinary.versionOf(dir.resolve("missing")))
                .isInstanceOf(CodexBinaryUnavailableException.class);
    }

    @Test
    void rejectsMalformedVersions() {
        assertThatThrownBy(() -> CodexBinary.version("latest")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CodexBinary.version("../../etc")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void installsOnceWithNpmAndThenReusesTheCache() throws Exception {
        Path log = dir.resolve("npm.log");
        // A stand-in for npm that records its arguments and lays out node_modules/.bin/codex like npm would.
        Path npm = script("npm", """
                [ "$1" = config ] && { echo "no such file"; exit 0; }
                echo "$@" >> '%s'
                prefix="$5"
                sleep 0.3
                mkdir -p "$prefix/node_modules/.bin"
                printf '#!/bin/sh\\necho codex-cli 1.2.3\\n' > "$prefix/node_modules/.bin/codex"
                chmod +x "$prefix/node_modules/.bin/codex"
                """.formatted(log));
        Path cache = dir.resolve("cache");

        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            List<Future<Path>> results = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                results.add(pool.submit(() -> CodexBinary.version("1.2.3", cache, () -> Optional.of(npm))));
            }
            for (Future<Path> result : results) {
                assertThat(result.get()).isEqualTo(cache.resolve("1.2.3/node_modules/.bin/codex"));
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(Files.readAllLines(log)).containsExactly("install --no-audit --no-fund --prefix "
                + cache.resolve("1.2.3") + " --cache " + cache.resolve("1.2.3/.npm-cache") + " @openai/codex@1.2.3");
        assertThat(CodexBinary.versionOf(CodexBinary.version("1.2.3", cache, Optional::empty))).isEqualTo("1.2.3");
    }

    @Test
    void anInstallSaysWhatItInstallsWhereAndHowBigAndWhenItIsDone() throws Exception {
        Path globalConfig = Files.writeString(dir.resolve("npmrc"), "cafile=/etc/ssl/certs/ca.crt\n");
        Path args = dir.resolve("args");
        Path npm = script("npm", """
                [ "$1" = config ] && { echo "npm warn something"; echo '%s'; exit 0; }
                echo "$@" > '%s'
                prefix="$5"
                mkdir -p "$7/_cacache" && echo downloaded > "$7/_cacache/tarball"
                mkdir -p "$prefix/node_modules/.bin"
                printf '#!/bin/sh\\necho codex-cli 1.2.3\\n' > "$prefix/node_modules/.bin/codex"
                chmod +x "$prefix/node_modules/.bin/codex"
                """.formatted(globalConfig, args));
        Path cache = dir.resolve("cache");
        List<String> progress = new ArrayList<>();

        CodexBinary.version("1.2.3", cache, () -> Optional.of(npm), progress::add);

        assertThat(progress).hasSizeGreaterThanOrEqualTo(2);
        assertThat(progress.get(0)).contains("Installing codex 1.2.3", "@openai/codex@1.2.3",
                cache.resolve("1.2.3").toString(), CodexBinary.APPROXIMATE_DOWNLOAD_MB + " MB to download");
        assertThat(progress.get(progress.size() - 1)).startsWith("Installed codex 1.2.3");

        assertThat(cache.resolve("1.2.3/.npm-cache")).as("npm's downloads are deleted once installed").doesNotExist();
        assertThat(Files.readString(args)).as("the machine's npm configuration still applies despite --prefix")
                .contains("--globalconfig " + globalConfig);

        progress.clear();
        CodexBinary.version("1.2.3", cache, () -> Optional.of(npm), progress::add);
        assertThat(progress).as("an installed version is found silently").isEmpty();
    }

    @Test
    void megabytesCountsTheFilesWrittenSoFar() throws Exception {
        Path prefix = Files.createDirectories(dir.resolve("prefix/node_modules/pkg"));
        Files.write(prefix.resolve("blob"), new byte[3 * 1024 * 1024]);
        assertThat(CodexBinary.megabytes(dir.resolve("prefix"))).isEqualTo(3);
        assertThat(CodexBinary.megabytes(dir.resolve("nothing-here"))).isZero();
    }

    @Test
    void versionOfRunsCodexWithAPrivateHomeThatItDeletes() throws Exception {
        Path seen = dir.resolve("seen");
        Path fake = script("codex-home-probe", """
                printf '%%s\\n%%s\\n' "$HOME" "$CODEX_HOME" > '%s'
                mkdir -p "$CODEX_HOME/tmp/arg0" && echo codex-cli 4.5.6
                """.formatted(seen));

        assertThat(CodexBinary.versionOf(fake)).isEqualTo("4.5.6");

        List<String> homes = Files.readAllLines(seen);
        assertThat(homes.get(0)).isNotEqualTo(System.getProperty("user.home"));
        assertThat(homes.get(1)).isEqualTo(homes.get(0) + "/.codex");
        assertThat(Path.of(homes.get(0))).as("deleted after the run").doesNotExist();
    }

    @Test
    void missingNpmIsAClearError() {
        assertThatThrownBy(() -> CodexBinary.version("1.2.3", dir.resolve("cache"), Optional::empty))
                .isInstanceOf(CodexBinaryUnavailableException.class)
                .hasMessageContaining("npm is not on the PATH").hasMessageContaining("codex.binary");
    }

    @Test
    void aFailingInstallIsAClearError() throws Exception {
        Path npm = script("npm", "echo 'npm ERR! 404 Not Found' >&2; exit 1");
        assertThatThrownBy(() -> CodexBinary.version("0.0.1", dir.resolve("cache"), () -> Optional.of(npm)))
                .isInstanceOf(CodexBinaryUnavailableException.class)
                .hasMessageContaining("exit code 1").hasMessageContaining("404 Not Found");
    }

    @Test
    @Tag("real-codex")
    void thePinnedVersionIsTheOneInTheCache() {
        Path pinned = CodexBinary.cacheRoot().resolve(CodexBinary.PINNED_VERSION)
                .resolve("node_modules/.bin/codex");

        // Installed into the cache when this test runs before any other needed it.
        assertThat(CodexBinary.pinned()).isEqualTo(pinned);
        assertThat(pinned).isExecutable();
        assertThat(CodexBinary.versionOf(pinned)).isEqualTo(CodexBinary.PINNED_VERSION);
    }
}
