package dev.codexclient.agent.workspace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.agent.workspace.WorkspaceSecurityException.Reason;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/** What the workspace tests do to host files and check of them. */
final class HostFiles {
    private HostFiles() {
    }

    /** Writes {@code text} to {@code file}, creating its directories. */
    static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    /** The entries of {@code dir}; none when it does not exist. */
    static List<Path> listing(Path dir) {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code call} fails with a {@link WorkspaceSecurityException} of {@code reason}. */
    static void assertSecurity(ThrowingCallable call, Reason reason) {
        assertThatThrownBy(call).isInstanceOfSatisfying(WorkspaceSecurityException.class,
                e -> assertThat(e.reason()).as(e.getMessage()).isEqualTo(reason));
    }
}
