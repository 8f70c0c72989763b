package dev.codexclient.agent.workspace;

import static dev.codexclient.agent.workspace.HostFiles.assertSecurity;
import static dev.codexclient.agent.workspace.HostFiles.listing;
import static dev.codexclient.agent.workspace.HostFiles.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.codexclient.agent.workspace.WorkspacePreview.SkipReason;
import dev.codexclient.agent.workspace.WorkspaceSecurityException.Reason;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class WorkspaceTest {
    @TempDir
    Path tmp;
    Path host;
    Path repo;
    Path parent;

    @BeforeEach
    void tree() throws IOException {
        host = tmp.resolve("host");
        repo = host.resolve("repo");
        parent = tmp.resolve("workspaces");
        write(repo.resolve("README.md"), "hello\n");
        write(repo.resolve("src/Main.java"), "class Main {}\n");
        write(repo.resolve("src/gen/Gen.java"), "class Gen {}\n");
        write(repo.resolve("build/out.bin"), "xxxxxxxxxx");
        write(host.resolve("secret.txt"), "top secret\n");
        Files.createDirectories(host.resolve("secret-dir"));
        write(host.resolve("secret-dir/key"), "k");
    }

    private Workspace.Builder builder() {
        return Workspace.builder().parentDirectory(parent).allowedRoot(repo);
    }

    @Test
    void copiesTheMountsAndPreviewsWhatWasLeftOut() throws IOException {
        try (Workspace ws = builder()
                .mount(HostMount.builder(repo, "repo").exclude("build").exclude("**/gen/**")
                        .include("**/*.java").include("*.md").build())
                .build()) {
            Path dir = ws.directory();
            assertThat(dir.getParent()).isEqualTo(parent);
            assertThat(Files.readString(dir.resolve("repo/src/Main.java"))).isEqualTo("class Main {}\n");
            assertThat(dir.resolve("repo/README.md")).exists();
            assertThat(dir.resolve("repo/build")).doesNotExist();
            assertThat(dir.resolve("repo/src/gen/Gen.java")).doesNotExist();
            assertThat(Files.isSymbolicLink(dir.resolve("repo/src/Main.java"))).isFalse();

            WorkspacePreview preview = ws.preview();
            assertThat(preview.files()).isEqualTo(2);
            assertThat(preview.bytes()).isEqualTo(6 + 14);
            WorkspacePreview.MountPreview m = preview.mounts().get(0);
            assertThat(m.skippedCount()).containsEntry(SkipReason.EXCLUDED, 2L);
            assertThat(m.skipped()).extracting(WorkspacePreview.Skipped::path)
                    .containsExactly("build", "src/gen/Gen.java");
            assertThat(preview.render()).contains("2 files, 20 bytes").contains("/repo <- repo")
                    .contains("left out, excluded: 2").doesNotContain(host.toString());

            // What codex writes stays in the workspace.
            Files.writeString(dir.resolve("repo/README.md"), "changed");
            assertThat(Files.readString(repo.resolve("README.md"))).isEqualTo("hello\n");
        }
    }

    @Test
    void aLinkInsideTheMountIsCopiedAsTheFileItPointsTo() throws IOException {
        Files.createSymbolicLink(repo.resolve("link.md"), Path.of("README.md"));
        Files.createSymbolicLink(repo.resolve("src-again"), Path.of("src"));
        try (Workspace ws = builder().mount(HostMount.of(repo, "r")).build()) {
            Path copy = ws.directory().resolve("r/link.md");
            assertThat(Files.isSymbolicLink(copy)).isFalse();
            assertThat(Files.readString(copy)).isEqualTo("hello\n");
            assertThat(ws.directory().resolve("r/src-again")).doesNotExist();
            assertThat(ws.preview().mounts().get(0).skippedCount())
                    .containsEntry(SkipReason.SYMLINK_TO_DIRECTORY, 1L);
        }
    }

    @Test
    void fingerprintIsStableAndFollowsContentAndConfiguration() throws IOException {
        String a;
        String b;
        String c;
        String d;
        try (Workspace one = builder().mount(HostMount.of(repo, "repo")).build();
             Workspace two = builder().mount(HostMount.of(repo, "repo")).build()) {
            assertThat(one.directory()).isNotEqualTo(two.directory());
            a = one.fingerprint();
            b = two.fingerprint();
        }
        assertThat(a).hasSize(64).isEqualTo(b);
        try (Workspace globbed = builder().mount(HostMount.builder(repo, "repo").exclude("build").build()).build()) {
            c = globbed.fingerprint();
        }
        write(repo.resolve("src/Main.java"), "class Main { }\n");
        try (Workspace changed = builder().mount(HostMount.of(repo, "repo")).build()) {
            d = changed.fingerprint();
        }
        assertThat(c).isNotEqualTo(a);
        assertThat(d).isNotEqualTo(a).isNotEqualTo(c);
    }

    @Test
    void closeDeletesEverythingButNeverFollowsLinks() throws IOException {
        Workspace ws = builder().mount(HostMount.of(repo, "repo")).build();
        Path dir = ws.directory();
        // What a model could leave: a link to a host file, a read-only and an unreadable directory.
        Files.createSymbolicLink(dir.resolve("escape"), host.resolve("secret.txt"));
        Files.createSymbolicLink(dir.resolve("escape-dir"), host.resolve("secret-dir"));
        Path locked = dir.resolve("repo/src");
        Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("r-x------"));
        Path closedDir = dir.resolve("repo/build");
        Files.setPosixFilePermissions(closedDir, PosixFilePermissions.fromString("---------"));
        ws.close();
        ws.close();
        assertThat(ws.isClosed()).isTrue();
        assertThat(dir).doesNotExist();
        assertThat(Files.readString(host.resolve("secret.txt"))).isEqualTo("top secret\n");
        assertThat(host.resolve("secret-dir/key")).exists();
        assertThat(listing(parent)).isEmpty();
    }

    @Test
    void aFailedBuildLeavesNothingBehind() {
        assertThatThrownBy(() -> builder().mount(HostMount.of(repo, "a"))
                .mount(HostMount.builder(repo, "b").maxBytes(5).build()).build())
                .isInstanceOf(WorkspaceBudgetExceededException.class);
        assertThat(listing(parent)).isEmpty();
    }

    @Test
    void aMountBudgetNamesTheMountAndTheBytes() {
        HostMount small = HostMount.builder(repo, "repo").maxBytes(20).build();
        assertThatThrownBy(() -> builder().mount(small).build())
                .isInstanceOfSatisfying(WorkspaceBudgetExceededException.class, e -> {
                    assertThat(e.mount()).contains(small);
                    assertThat(e.totalBudget()).isFalse();
                    assertThat(e.limit()).isEqualTo(20);
                    // README.md (6) + build/out.bin (10) copied, then src/Main.java (14) would cross it.
                    assertThat(e.attempted()).isEqualTo(30);
                    assertThat(e.getMessage()).contains("repo").contains("20");
                });
    }

    @Test
    void theTotalBudgetCoversAllMounts() {
        assertThatThrownBy(() -> builder().maxTotalBytes(40)
                .mount(HostMount.of(repo.resolve("src"), "src"))
                .mount(HostMount.of(repo, "repo")).build())
                .isInstanceOfSatisfying(WorkspaceBudgetExceededException.class, e -> {
                    assertThat(e.totalBudget()).isTrue();
                    assertThat(e.limit()).isEqualTo(40);
                    assertThat(e.mount().orElseThrow().mountPath()).isEqualTo("repo");
                });
        try (Workspace ws = builder().maxTotalBytes(57).mount(HostMount.of(repo, "repo")).build()) {
            assertThat(ws.preview().bytes()).isEqualTo(6 + 10 + 14 + 13);
        }
    }

    @Test
    void leftoversOfDeadProcessesAreDeletedOnTheNextBuild() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        long pid = gone.pid();
        long started = gone.info().startInstant().map(Instant::toEpochMilli).orElse(1L);
        gone.waitFor();
        Files.createDirectories(parent);
        Path dead = parent.resolve("codex-ws-" + pid + "-" + started + "-0123456789abcdef");
        write(dead.resolve("repo/file"), "left behind");
        Path reused = parent.resolve("codex-ws-" + ProcessHandle.current().pid() + "-1-0123456789abcdef");
        Files.createDirectories(reused);
        Path mine = parent.resolve("codex-ws-" + ProcessHandle.current().pid() + "-"
                + ProcessHandle.current().info().startInstant().orElseThrow().toEpochMilli() + "-0123456789abcdef");
        Files.createDirectories(mine);
        Path foreign = parent.resolve("something-else");
        Files.createDirectories(foreign);

        try (Workspace ws = builder().mount(HostMount.of(repo, "repo")).build()) {
            assertThat(dead).doesNotExist();
            assertThat(reused).as("same pid, other start time: a leftover").doesNotExist();
            assertThat(mine).as("this process's own").exists();
            assertThat(foreign).exists();
            assertThat(ws.directory()).exists();
        }
    }

    // Security

    @Test
    void aMountOutsideTheAllowedRootsIsRefused() {
        assertSecurity(() -> builder().mount(HostMount.of(host.resolve("secret-dir"), "s")).build(),
                Reason.OUTSIDE_ALLOWED_ROOTS);
        assertSecurity(() -> Workspace.builder().parentDirectory(parent).mount(HostMount.of(repo, "r")).build(),
                Reason.OUTSIDE_ALLOWED_ROOTS);
    }

    @Test
    void aMountWhoseHostPathIsALinkOutOfTheRootsIsRefused() throws IOException {
        Files.createSymbolicLink(repo.resolve("out"), host.resolve("secret-dir"));
        assertSecurity(() -> builder().mount(HostMount.of(repo.resolve("out"), "s")).build(),
                Reason.OUTSIDE_ALLOWED_ROOTS);
    }

    @Test
    void parentSegmentsAreRefused() {
        assertSecurity(() -> HostMount.of(repo, "../escape"), Reason.PARENT_SEGMENT);
        assertSecurity(() -> HostMount.of(repo, "a/../../escape"), Reason.PARENT_SEGMENT);
        assertSecurity(() -> HostMount.of(repo.resolve("../secret-dir"), "s"), Reason.PARENT_SEGMENT);
        assertSecurity(() -> HostMount.of(repo, "/etc"), Reason.INVALID_PATH);
        assertSecurity(() -> HostMount.of(Path.of("relative"), "r"), Reason.INVALID_PATH);
        assertThat(HostMount.of(repo, "./a//b/").mountPath()).isEqualTo("a/b");
    }

    @Test
    void aLinkToAFileOutsideTheMountIsRefused() throws IOException {
        Files.createSymbolicLink(repo.resolve("src/leak.txt"), host.resolve("secret.txt"));
        assertSecurity(() -> builder().mount(HostMount.of(repo, "repo")).build(), Reason.SYMLINK_ESCAPE);
        assertThat(listing(parent)).isEmpty();
    }

    @Test
    void aLinkToADirectoryOutsideTheMountIsRefused() throws IOException {
        Files.createSymbolicLink(repo.resolve("src/leak"), host.resolve("secret-dir"));
        assertSecurity(() -> builder().mount(HostMount.of(repo, "repo")).build(), Reason.SYMLINK_ESCAPE);
        // A sibling mount root is outside too, even below the same allowed root.
        Files.delete(repo.resolve("src/leak"));
        Files.createSymbolicLink(repo.resolve("src/up"), repo.resolve("README.md"));
        assertSecurity(() -> builder().mount(HostMount.of(repo.resolve("src"), "src")).build(),
                Reason.SYMLINK_ESCAPE);
    }

    @Test
    void aLinkLoopIsRefused() throws IOException {
        Files.createSymbolicLink(repo.resolve("a"), Path.of("b"));
        Files.createSymbolicLink(repo.resolve("b"), Path.of("a"));
        assertSecurity(() -> builder().mount(HostMount.of(repo, "repo")).build(), Reason.SYMLINK_LOOP);
        assertSecurity(() -> builder().mount(HostMount.of(repo.resolve("a"), "a")).build(), Reason.SYMLINK_LOOP);
    }

    @Test
    void aFileThatGrowsWhileCopiedFailsTheWorkspace() {
        Path growing = repo.resolve("src/Main.java");
        Workspace.Builder b = builder().mount(HostMount.of(repo, "repo")).beforeOpen(p -> {
            if (p.equals(growing)) {
                try {
                    Files.writeString(growing, "more", StandardOpenOption.APPEND);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        });
        assertSecurity(b::build, Reason.FILE_CHANGED);
        assertThat(listing(parent)).isEmpty();
    }

    @Test
    void aDirectorySwappedForALinkWhileCopyingIsRefused() throws IOException {
        Path src = repo.resolve("src");
        Path moved = host.resolve("moved-src");
        Workspace.Builder b = builder().mount(HostMount.of(repo, "repo")).beforeOpen(p -> {
            if (p.equals(src.resolve("Main.java"))) {
                try {
                    // src was opened; now it is a link to a directory outside the mount with the same files in it.
                    Files.move(src, moved);
                    write(host.resolve("outside/Main.java"), "class Main {}\n");
                    write(host.resolve("outside/gen/Gen.java"), "class Gen {}\n");
                    Files.createSymbolicLink(src, host.resolve("outside"));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        });
        assertSecurity(b::build, Reason.FILE_CHANGED);
        assertThat(listing(parent)).isEmpty();
    }

    @Test
    void aFileThatShrinksWhileCopiedFailsTheWorkspace() {
        Path shrinking = repo.resolve("src/Main.java");
        Workspace.Builder b = builder().mount(HostMount.of(repo, "repo")).beforeOpen(p -> {
            if (p.equals(shrinking)) {
                try {
                    Files.writeString(shrinking, "x");
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        });
        assertSecurity(b::build, Reason.FILE_CHANGED);
    }

    @Test
    @Timeout(60)
    void aFifoIsLeftOutWithoutBlocking() throws Exception {
        Path fifo = repo.resolve("src/pipe");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assumeThat(mkfifo.waitFor()).isZero();
        try (Workspace ws = builder().mount(HostMount.of(repo, "repo")).build()) {
            assertThat(ws.directory().resolve("repo/src/pipe")).doesNotExist();
            assertThat(ws.preview().mounts().get(0).skipped())
                    .contains(new WorkspacePreview.Skipped("src/pipe", SkipReason.SPECIAL_FILE));
        }
        assertSecurity(() -> builder().mount(HostMount.of(fifo, "pipe")).build(), Reason.SPECIAL_FILE);
    }

    @Test
    void aDeviceIsRefusedAsMountAndAsLinkTarget() throws IOException {
        assumeThat(Files.exists(Path.of("/dev/null"))).isTrue();
        assertSecurity(() -> Workspace.builder().parentDirectory(parent).allowedRoot(Path.of("/dev"))
                .mount(HostMount.of(Path.of("/dev/null"), "null")).build(), Reason.SPECIAL_FILE);
        Files.createSymbolicLink(repo.resolve("null"), Path.of("/dev/null"));
        assertSecurity(() -> builder().mount(HostMount.of(repo, "repo")).build(), Reason.SYMLINK_ESCAPE);
        // Allowed to read /dev, the device inside the mount is left out, never opened.
        try (Workspace ws = Workspace.builder().parentDirectory(parent).allowedRoot(Path.of("/"))
                .mount(HostMount.builder(Path.of("/dev"), "dev").include("null").build()).build()) {
            assertThat(ws.directory().resolve("dev/null")).doesNotExist();
            assertThat(ws.preview().mounts().get(0).skippedCount()).containsEntry(SkipReason.SPECIAL_FILE, 1L);
        }
    }

    @Test
    void overlappingMountPathsAreRefused() {
        assertThatThrownBy(() -> builder().mount(HostMount.of(repo, "a")).mount(HostMount.of(repo, "a/b")).build())
                .isInstanceOf(IllegalArgumentException.class);
    }
}
