package dev.codexclient.agent.workspace;

import static dev.codexclient.agent.workspace.HostFiles.assertSecurity;
import static dev.codexclient.agent.workspace.HostFiles.listing;
import static dev.codexclient.agent.workspace.HostFiles.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.agent.workspace.WorkspaceBudgetExceededException.Budget;
import dev.codexclient.agent.workspace.WorkspacePreview.SkipReason;
import dev.codexclient.agent.workspace.WorkspaceSecurityException.Reason;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.text.Normalizer;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a workspace copies, refuses and leaves out when the host tree is hostile or odd: hard links, entries swapped
 * between listing and opening (through the builder's seam, so each race happens every time), trees too wide or too
 * deep, names that are not what they seem, and an unsafe parent directory.
 */
@Timeout(60)
class WorkspaceHardeningTest {
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
        write(host.resolve("secret.txt"), "top secret\n");
    }

    private Workspace.Builder builder() {
        return Workspace.builder().parentDirectory(parent).allowedRoot(repo);
    }

    // The preview

    @Test
    void thePreviewListsTheCopiedFilesBoundedWithACountBeyond() throws IOException {
        for (int i = 0; i < WorkspacePreview.MountPreview.COPIED_LISTED + 5; i++) {
            write(repo.resolve(String.format("many/f%03d.txt", i)), "x");
        }
        try (Workspace ws = builder().mount(HostMount.builder(repo, "repo").exclude("src").build()).build()) {
            WorkspacePreview.MountPreview m = ws.preview().mounts().get(0);
            assertThat(m.files()).isEqualTo(WorkspacePreview.MountPreview.COPIED_LISTED + 6);
            assertThat(m.copied()).hasSize(WorkspacePreview.MountPreview.COPIED_LISTED)
                    .startsWith("README.md", "many/f000.txt");
            assertThat(ws.preview().render()).contains("  copied:\n    README.md\n    many/f000.txt\n")
                    .contains("    (6 more)\n").contains("    src (excluded)\n");
        }
    }

    @Test
    void aSecretFileLeftOutIsNamedAsLeftOutAndNotAsCopied() throws IOException {
        write(repo.resolve(".env"), "API_KEY=1\n");
        try (Workspace ws = builder().mount(HostMount.builder(repo, "repo").exclude(".env").build()).build()) {
            WorkspacePreview.MountPreview m = ws.preview().mounts().get(0);
            assertThat(m.copied()).containsExactly("README.md", "src/Main.java");
            assertThat(m.skipped()).containsExactly(new WorkspacePreview.Skipped(".env", SkipReason.EXCLUDED));
        }
    }

    // Hard links

    @Test
    void aHardLinkIsRefusedUnlessItsMountAllowsThem() throws IOException {
        Files.createLink(repo.resolve("innocent.txt"), host.resolve("secret.txt"));
        assertSecurity(() -> builder().mount(HostMount.of(repo, "repo")).build(), Reason.HARD_LINK);
        assertThat(listing(parent)).isEmpty();
        try (Workspace ws = builder().mount(HostMount.builder(repo, "repo").allowHardLinks().build()).build()) {
            assertThat(Files.readString(ws.directory().resolve("repo/innocent.txt"))).isEqualTo("top secret\n");
        }
    }

    @Test
    void aMountOfOneHardLinkedFileIsRefusedToo() throws IOException {
        Files.createLink(repo.resolve("innocent.txt"), host.resolve("secret.txt"));
        assertSecurity(() -> builder().mount(HostMount.of(repo.resolve("innocent.txt"), "i.txt")).build(),
                Reason.HARD_LINK);
    }

    // Entries swapped between listing and opening

    @Test
    void aFifoSwappedInAfterListingFailsTheCopyWithoutBlocking() {
        Path main = repo.resolve("src/Main.java");
        Workspace.Builder b = builder().mount(HostMount.of(repo, "repo")).beforeOpen(p -> {
            if (p.equals(main)) {
                replace(main, () -> mkfifo(main));
            }
        });
        assertSecurity(b::build, Reason.FILE_CHANGED);
        assertThat(listing(parent)).isEmpty();
    }

    @Test
    void aDirectorySwappedForALinkBeforeItIsListedIsRefusedAndNoOutsideNameIsListed() throws IOException {
        Path src = repo.resolve("src");
        write(host.resolve("outside/passwords.txt"), "hunter2\n");
        Workspace.Builder b = builder().mount(HostMount.of(repo, "repo")).beforeOpen(p -> {
            if (p.equals(src)) {
                replace(src, () -> Files.createSymbolicLink(src, host.resolve("outside")));
            }
        });
        assertThatThrownBy(b::build).isInstanceOfSatisfying(WorkspaceSecurityException.class, e -> {
            assertThat(e.reason()).isEqualTo(Reason.FILE_CHANGED);
            assertThat(e.getMessage()).doesNotContain("passwords");
        });
        assertThat(listing(parent)).isEmpty();
    }

    @Test
    void aLastComponentSwappedForALinkIsASecurityFailure() {
        Path main = repo.resolve("src/Main.java");
        Workspace.Builder b = builder().mount(HostMount.of(repo, "repo")).beforeOpen(p -> {
            if (p.equals(main)) {
                replace(main, () -> Files.createSymbolicLink(main, host.resolve("secret.txt")));
            }
        });
        assertSecurity(b::build, Reason.FILE_CHANGED);
    }

    @Test
    void aFileSwappedForAnotherFileIsASecurityFailure() {
        Path main = repo.resolve("src/Main.java");
        Workspace.Builder b = builder().mount(HostMount.of(repo, "repo")).beforeOpen(p -> {
            if (p.equals(main)) {
                // Same size, other file: only its identity tells.
                replace(main, () -> Files.writeString(main, "class Evil {}\n"));
            }
        });
        assertSecurity(b::build, Reason.FILE_CHANGED);
    }

    // Budgets of entries and depth

    @Test
    void aTreeWiderThanTheFileBudgetFailsTypedBeforeItIsHeld() throws IOException {
        for (int i = 0; i < 300; i++) {
            Files.createFile(Files.createDirectories(repo.resolve("wide")).resolve("e" + i));
        }
        assertThatThrownBy(() -> builder().maxFiles(100).mount(HostMount.of(repo, "repo")).build())
                .isInstanceOfSatisfying(WorkspaceBudgetExceededException.class, e -> {
                    assertThat(e.budget()).isEqualTo(Budget.FILES);
                    assertThat(e.limit()).isEqualTo(100);
                    assertThat(e.attempted()).isEqualTo(101);
                });
        assertThat(listing(parent)).isEmpty();
        assertThat(Workspace.DEFAULT_MAX_FILES).isPositive();
    }

    @Test
    void aTreeDeeperThanTheDepthBudgetFailsTyped() throws IOException {
        Path deep = repo;
        for (int i = 0; i < 10; i++) {
            deep = deep.resolve("d" + i);
        }
        write(deep.resolve("leaf.txt"), "leaf");
        assertThatThrownBy(() -> builder().maxDepth(5).mount(HostMount.of(repo, "repo")).build())
                .isInstanceOfSatisfying(WorkspaceBudgetExceededException.class, e -> {
                    assertThat(e.budget()).isEqualTo(Budget.DEPTH);
                    assertThat(e.limit()).isEqualTo(5);
                    assertThat(e.attempted()).isEqualTo(6);
                });
        try (Workspace ws = builder().maxDepth(11).mount(HostMount.of(repo, "repo")).build()) {
            assertThat(ws.preview().mounts().get(0).copied()).contains("d0/d1/d2/d3/d4/d5/d6/d7/d8/d9/leaf.txt");
        }
    }

    // Odd names

    @Test
    void aNameWithANewlineIsCopiedUnderItsOwnNameAndRenderedOnOneLine() throws IOException {
        write(repo.resolve("two\nlines.txt"), "newline");
        try (Workspace ws = builder().mount(HostMount.of(repo, "repo")).build()) {
            assertThat(Files.readString(ws.directory().resolve("repo/two\nlines.txt"))).isEqualTo("newline");
            assertThat(ws.preview().mounts().get(0).copied()).contains("two\nlines.txt");
            assertThat(ws.preview().render()).contains("    two\\nlines.txt\n");
        }
    }

    @Test
    void aNameThatIsNotUtf8IsLeftOutNeverWrittenUnderAnotherName() throws Exception {
        // Java cannot name such a file on a UTF-8 system; the shell can.
        Process p = new ProcessBuilder("sh", "-c", "printf data > \"$(printf 'bad\\377name')\"")
                .directory(repo.toFile()).start();
        assertThat(p.waitFor()).isZero();
        try (Workspace ws = builder().mount(HostMount.of(repo, "repo")).build()) {
            WorkspacePreview.MountPreview m = ws.preview().mounts().get(0);
            assertThat(m.skippedCount()).containsEntry(SkipReason.INVALID_NAME, 1L);
            assertThat(listing(ws.directory().resolve("repo"))).extracting(f -> f.getFileName().toString())
                    .containsExactlyInAnyOrder("README.md", "src");
        }
    }

    @Test
    void unicodeAndCaseTwinsAreEachCopiedUnderTheirOwnName() throws IOException {
        String nfc = Normalizer.normalize("café.txt", Normalizer.Form.NFC);
        String nfd = Normalizer.normalize("café.txt", Normalizer.Form.NFD);
        write(repo.resolve(nfc), "composed");
        write(repo.resolve(nfd), "decomposed");
        write(repo.resolve("Readme.md"), "other case");
        try (Workspace ws = builder().mount(HostMount.of(repo, "repo")).build()) {
            Path dir = ws.directory().resolve("repo");
            assertThat(Files.readString(dir.resolve(nfc))).isEqualTo("composed");
            assertThat(Files.readString(dir.resolve(nfd))).isEqualTo("decomposed");
            assertThat(Files.readString(dir.resolve("Readme.md"))).isEqualTo("other case");
            assertThat(Files.readString(dir.resolve("README.md"))).isEqualTo("hello\n");
        }
    }

    @Test
    void aNameTheWorkspacesFileSystemFoldsIntoOneAlreadyWrittenIsLeftOutNotWrittenOver() throws IOException {
        write(repo.resolve("a.txt"), "first");
        write(repo.resolve("b.txt"), "second");
        // What a file system folding names does: by the time b.txt is written, its name is taken.
        Workspace.Builder b = builder().mount(HostMount.of(repo, "repo")).beforeOpen(p -> {
            if (p.equals(repo.resolve("a.txt"))) {
                try (Stream<Path> made = Files.list(parent)) {
                    Files.writeString(made.findFirst().orElseThrow().resolve("repo/b.txt"), "first");
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        });
        try (Workspace ws = b.build()) {
            assertThat(Files.readString(ws.directory().resolve("repo/b.txt"))).isEqualTo("first");
            assertThat(ws.preview().mounts().get(0).skipped())
                    .contains(new WorkspacePreview.Skipped("b.txt", SkipReason.NAME_CLASH));
        }
    }

    // The parent directory

    @Test
    void theParentAndTheWorkspaceArePrivateToTheUser() throws IOException {
        try (Workspace ws = builder().mount(HostMount.of(repo, "repo")).build()) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(parent)))
                    .isEqualTo("rwx------");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(ws.directory())))
                    .isEqualTo("rwx------");
        }
    }

    @Test
    void aParentThatIsALinkIsRefused() throws IOException {
        Path real = Files.createDirectories(tmp.resolve("real-parent"));
        Files.setPosixFilePermissions(real, PosixFilePermissions.fromString("rwx------"));
        Files.createSymbolicLink(parent, real);
        assertSecurity(() -> builder().mount(HostMount.of(repo, "repo")).build(), Reason.UNSAFE_PARENT);
        assertThat(listing(real)).isEmpty();
    }

    @Test
    void aParentOthersMayWriteIsRefused() throws IOException {
        Files.createDirectories(parent);
        Files.setPosixFilePermissions(parent, PosixFilePermissions.fromString("rwxrwx---"));
        assertSecurity(() -> builder().mount(HostMount.of(repo, "repo")).build(), Reason.UNSAFE_PARENT);
        assertThat(listing(parent)).isEmpty();
    }

    @Test
    void aParentOwnedBySomeoneElseIsRefused() throws IOException {
        Path foreign;
        String self = ProcessHandle.current().info().user().orElseThrow();
        if (self.equals("root")) {
            // Root can give a directory away; anyone else finds one owned by root.
            foreign = Files.createDirectories(tmp.resolve("foreign"));
            Files.setPosixFilePermissions(foreign, PosixFilePermissions.fromString("rwx------"));
            UserPrincipal nobody = foreign.getFileSystem().getUserPrincipalLookupService()
                    .lookupPrincipalByName("nobody");
            Files.setOwner(foreign, nobody);
        } else {
            foreign = Path.of("/");
        }
        Path chosen = foreign;
        assertSecurity(() -> Workspace.builder().parentDirectory(chosen).allowedRoot(repo)
                .mount(HostMount.of(repo, "repo")).build(), Reason.UNSAFE_PARENT);
    }

    private interface IoAction {
        void run() throws IOException;
    }

    /** Moves {@code path} aside and puts what {@code put} makes in its place. */
    private void replace(Path path, IoAction put) {
        try {
            Files.move(path, host.resolve("aside-" + path.getFileName()));
            put.run();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void mkfifo(Path path) throws IOException {
        try {
            Process p = new ProcessBuilder("mkfifo", path.toString()).start();
            if (p.waitFor() != 0) {
                throw new IOException("mkfifo failed");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }
}
