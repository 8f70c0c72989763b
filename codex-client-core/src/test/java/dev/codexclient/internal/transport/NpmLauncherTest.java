package dev.codexclient.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.internal.transport.NpmLauncher.Kept;
import dev.codexclient.internal.transport.NpmLauncher.Native;
import dev.codexclient.internal.transport.NpmLauncher.NotLauncher;
import dev.codexclient.internal.transport.NpmLauncher.Platform;
import dev.codexclient.internal.transport.NpmLauncher.Resolution;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's layouts, built in a temporary directory: the three kinds of launcher the supported codex versions
 * ship (their behaviour, not their code: each stand-in names what the real one does), the places the platform
 * package is found, the markers, and every way a launcher is kept.
 */
class NpmLauncherTest {
    private static final Platform LINUX_X64 = new Platform("linux", "x64");
    private static final String TRIPLE = "x86_64-unknown-linux-musl";

    /** 0.98.0: binaries in the package itself, PATH prepended, NPM or BUN marker. */
    private static final String BUNDLED = """
            // stand-in: vendor/<triple>/codex/codex, getUpdatedPath([archRoot/path]), env = { ...env, PATH: p }
            // CODEX_MANAGED_BY_BUN or CODEX_MANAGED_BY_NPM = "1"
            """;
    /** 0.120.0: the platform package (PLATFORM_PACKAGE_BY_TARGET), else the local vendor; as 0.98.0 otherwise. */
    private static final String PLATFORM_PACKAGE = BUNDLED + """
            // PLATFORM_PACKAGE_BY_TARGET: require.resolve(platformPackage + "/package.json")
            """;
    /** 0.169.0: bin/codex, no PATH change, the package root, four markers of which one is set. */
    private static final String PACKAGE_ROOT = """
            // stand-in: PLATFORM_PACKAGE_BY_TARGET, vendor/<triple>/bin/codex
            // env = { ...env, CODEX_MANAGED_PACKAGE_ROOT: root }; delete CODEX_MANAGED_BY_NPM, CODEX_MANAGED_BY_BUN,
            // CODEX_MANAGED_BY_PNPM, CODEX_MANAGED_BY_VITE_PLUS; then one of them = "1"
            """;

    @TempDir
    Path dir;

    /** {@code <prefix>/node_modules/@openai/codex} with {@code script} and a {@code .bin/codex} link to it. */
    private Path launcher(Path prefix, String script) throws IOException {
        Path pkg = Files.createDirectories(prefix.resolve("node_modules/@openai/codex/bin"));
        Files.writeString(pkg.resolve("../package.json"), "{\"name\":\"@openai/codex\",\"version\":\"9.9.9\"}");
        Path js = pkg.resolve("codex.js");
        Files.writeString(js, "#!/usr/bin/env node\n" + script);
        executable(js);
        Path bin = Files.createDirectories(prefix.resolve("node_modules/.bin"));
        return Files.createSymbolicLink(bin.resolve("codex"), Path.of("../@openai/codex/bin/codex.js"));
    }

    /** A native binary at {@code vendor/<triple>/<sub>/codex} of {@code pkg}, with a {@code path} helpers dir. */
    private Path binary(Path pkg, String sub) throws IOException {
        Path arch = Files.createDirectories(pkg.resolve("vendor").resolve(TRIPLE));
        Files.createDirectories(arch.resolve("path"));
        Path b = Files.createDirectories(arch.resolve(sub)).resolve("codex");
        Files.writeString(b, "#!/bin/sh\n");
        return executable(b).toRealPath();
    }

    private Path platformPackage(Path nodeModules) throws IOException {
        Path p = Files.createDirectories(nodeModules.resolve("@openai/codex-linux-x64"));
        Files.writeString(p.resolve("package.json"), "{\"name\":\"@openai/codex\",\"version\":\"9.9.9-linux-x64\"}");
        return p;
    }

    private static Path executable(Path p) throws IOException {
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return p;
    }

    private static Resolution resolve(Path executable, Map<String, String> env) {
        return NpmLauncher.resolve(executable, env, LINUX_X64);
    }

    private static Map<String, String> env(String... pairs) {
        Map<String, String> env = new HashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            env.put(pairs[i], pairs[i + 1]);
        }
        return env;
    }

    @Test
    void aBundledLauncherRunsItsOwnBinaryWithItsHelpersFirstOnPath() throws IOException {
        Path exe = launcher(dir, BUNDLED);
        Path pkg = dir.resolve("node_modules/@openai/codex").toRealPath();
        Path binary = binary(pkg, "codex");

        Resolution r = resolve(exe, env("PATH", "/usr/bin::/bin:"));

        assertThat(r).isInstanceOf(Native.class);
        Native n = (Native) r;
        assertThat(n.binary()).isEqualTo(binary);
        assertThat(n.launcher()).isEqualTo(pkg.resolve("bin/codex.js"));
        assertThat(n.packageVersion()).isEqualTo("9.9.9");
        // The launcher rewrites PATH without its empty entries.
        assertThat(n.set()).containsOnly(Map.entry("PATH", pkg.resolve("vendor").resolve(TRIPLE).resolve("path")
                + ":/usr/bin:/bin"), Map.entry("CODEX_MANAGED_BY_NPM", "1"));
        assertThat(n.removed()).isEmpty();
    }

    @Test
    void thePlatformPackageWinsOverTheLocalVendorAndIsFoundInAnAncestorsNodeModules() throws IOException {
        Path exe = launcher(dir, PLATFORM_PACKAGE);
        Path pkg = dir.resolve("node_modules/@openai/codex").toRealPath();
        binary(pkg, "codex");
        Path fromPlatform = binary(platformPackage(dir.resolve("node_modules")), "codex");

        Native n = (Native) resolve(exe, env("PATH", "/bin"));

        assertThat(n.binary()).isEqualTo(fromPlatform);
        assertThat(n.set().get("PATH")).startsWith(fromPlatform.getParent().getParent().resolve("path") + ":");
    }

    @Test
    void withoutThePlatformPackageTheLocalVendorServes() throws IOException {
        Path exe = launcher(dir, PLATFORM_PACKAGE);
        Path local = binary(dir.resolve("node_modules/@openai/codex").toRealPath(), "codex");

        assertThat(((Native) resolve(exe, env())).binary()).isEqualTo(local);
    }

    @Test
    void aPackageRootLauncherSetsTheRootAndOneMarkerAndLeavesPathAlone() throws IOException {
        Path exe = launcher(dir, PACKAGE_ROOT);
        Path pkg = dir.resolve("node_modules/@openai/codex").toRealPath();
        Path binary = binary(platformPackage(dir.resolve("node_modules")), "bin");
        Map<String, String> env = env("PATH", "/bin", "CODEX_MANAGED_BY_BUN", "1", "CODEX_MANAGED_BY_PNPM", "1");

        Native n = (Native) resolve(exe, env);
        n.applyTo(env);

        assertThat(n.binary()).isEqualTo(binary);
        assertThat(env).containsOnly(Map.entry("PATH", "/bin"), Map.entry("CODEX_MANAGED_BY_NPM", "1"),
                Map.entry("CODEX_MANAGED_PACKAGE_ROOT", pkg.toString()));
    }

    @Test
    void bunIsRecognisedFromTheEnvironmentAsTheLaunchersDo() throws IOException {
        Path exe = launcher(dir, PACKAGE_ROOT);
        binary(platformPackage(dir.resolve("node_modules")), "bin");

        assertThat(((Native) resolve(exe, env("npm_config_user_agent", "bun/1.2.3 npm/?"))).set())
                .containsEntry("CODEX_MANAGED_BY_BUN", "1").doesNotContainKey("CODEX_MANAGED_BY_NPM");
        assertThat(((Native) resolve(exe, env("npm_execpath", "/opt/bun/bin/bun"))).set())
                .containsEntry("CODEX_MANAGED_BY_BUN", "1");
    }

    @Test
    void aPnpmStoreIsFoundAboveThePackageAndSetsItsMarker() throws IOException {
        // pnpm: the package lives in node_modules/.pnpm/<id>/node_modules, linked from node_modules/@openai/codex.
        Path store = dir.resolve("node_modules/.pnpm/@openai+codex@9.9.9");
        Path exe = launcher(store, PACKAGE_ROOT);
        Path pkg = store.resolve("node_modules/@openai/codex").toRealPath();
        binary(platformPackage(store.resolve("node_modules")), "bin");
        Files.writeString(dir.resolve("node_modules/.modules.yaml"), "layoutVersion: 5\n");
        Files.createSymbolicLink(Files.createDirectories(dir.resolve("node_modules/@openai")).resolve("codex"), pkg);

        assertThat(((Native) resolve(exe, env())).set()).containsEntry("CODEX_MANAGED_BY_PNPM", "1")
                .containsEntry("CODEX_MANAGED_PACKAGE_ROOT", pkg.toString());
        // A launcher that does not know pnpm says npm in the same place.
        Files.writeString(pkg.resolve("bin/codex.js"), PLATFORM_PACKAGE);
        assertThat(((Native) resolve(exe, env())).set()).containsEntry("CODEX_MANAGED_BY_NPM", "1")
                .doesNotContainKey("CODEX_MANAGED_PACKAGE_ROOT");
    }

    @Test
    void aVitePlusInstallIsRecognisedFromItsMetadata() throws IOException {
        Path packages = Files.createDirectories(dir.resolve("vp/packages"));
        Path install = packages.resolve("@openai/codex/abc");
        Path exe = launcher(install, PACKAGE_ROOT);
        binary(platformPackage(install.resolve("node_modules")), "bin");
        Files.writeString(packages.resolve("@openai/codex.json"), "{\"name\":\"@openai/codex\",\"installId\":\"abc\"}");

        assertThat(((Native) resolve(exe, env())).set()).containsEntry("CODEX_MANAGED_BY_VITE_PLUS", "1");
    }

    @Test
    void aLauncherThatSetsAVariableThisClientDoesNotKnowIsKept() throws IOException {
        Path exe = launcher(dir, PACKAGE_ROOT + "env.CODEX_SOMETHING_NEW = \"1\";\n");
        binary(platformPackage(dir.resolve("node_modules")), "bin");

        Resolution r = resolve(exe, env());

        assertThat(r).isInstanceOf(Kept.class);
        assertThat(((Kept) r).why()).contains("CODEX_SOMETHING_NEW");
        assertThat(((Kept) r).launcher()).isEqualTo(exe.toRealPath());
    }

    @Test
    void aLauncherThatChangesPathOtherwiseIsKept() throws IOException {
        Path exe = launcher(dir, PACKAGE_ROOT + "env.PATH = extra + sep + env.PATH;\n");
        binary(platformPackage(dir.resolve("node_modules")), "bin");

        assertThat(((Kept) resolve(exe, env())).why()).contains("PATH");
    }

    @Test
    void aPlatformWithoutANativeCodexKeepsTheLauncher() throws IOException {
        Path exe = launcher(dir, BUNDLED);
        binary(dir.resolve("node_modules/@openai/codex"), "codex");

        Resolution r = NpmLauncher.resolve(exe, env(), new Platform("freebsd", "x64"));

        assertThat(((Kept) r).why()).contains("freebsd/x64");
    }

    @Test
    void aMissingBinaryKeepsTheLauncherWhichThenReportsItself() throws IOException {
        Path exe = launcher(dir, PACKAGE_ROOT);
        platformPackage(dir.resolve("node_modules"));

        assertThat(((Kept) resolve(exe, env())).why()).contains("not in");
    }

    @Test
    void anythingButTheLauncherRunsAsItIs() throws IOException {
        Path script = executable(Files.writeString(dir.resolve("codex"), "#!/bin/sh\nexec real-codex \"$@\"\n"));
        assertThat(resolve(script, env())).isInstanceOf(NotLauncher.class);
        assertThat(resolve(dir.resolve("missing"), env())).isInstanceOf(NotLauncher.class);

        // A codex.js of another package.
        Path other = Files.createDirectories(dir.resolve("other/bin"));
        Files.writeString(other.resolve("../package.json"), "{\"name\":\"not-codex\"}");
        Path js = executable(Files.writeString(other.resolve("codex.js"), BUNDLED));
        assertThat(resolve(js, env())).isInstanceOf(NotLauncher.class);
    }

    @Test
    void nodePlatformNamesMapToTheLaunchersTriples() {
        assertThat(new Platform("linux", "arm64").triple()).contains("aarch64-unknown-linux-musl");
        assertThat(new Platform("darwin", "x64").triple()).contains("x86_64-apple-darwin");
        assertThat(new Platform("win32", "arm64").triple()).contains("aarch64-pc-windows-msvc");
        assertThat(new Platform("linux", "ia32").triple()).isEmpty();
        assertThat(new Platform("darwin", "arm64").platformPackage()).isEqualTo("@openai/codex-darwin-arm64");
    }
}
