package dev.codexclient.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.CodexClient;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.pool.CodexPool;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pool member whose server never starts: an executable in place of codex that fails as codex does on a busy state
 * database on every start, or fails another way. No codex runs (the start fails before a handshake), so these are
 * not real-codex tests; {@link RealCodexPoolBusyStartTest} has the start that is tried again and then serves.
 */
@Timeout(60)
class PoolBusyStartTest {
    @TempDir
    Path dir;

    private static CodexClient client(Path executable) {
        return CodexClient.builder().codexBinary(executable).initializeTimeout(Duration.ofSeconds(10)).build();
    }

    /** An executable that fails every run with codex's own message for a locked state database. */
    private Path alwaysBusy() throws IOException {
        Path script = dir.resolve("codex-busy");
        Files.writeString(script, """
                #!/bin/sh
                echo x >> '%s'
                echo "Error: failed to initialize sqlite state runtime under $CODEX_HOME: failed to initialize \
                state runtime at $CODEX_HOME: failed to open state DB at $CODEX_HOME/state_5.sqlite: error returned \
                from database: (code: 5) database is locked" >&2
                exit 1
                """.formatted(dir.resolve("busy-runs")));
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        return script;
    }

    @Test
    void aStateDatabaseBusyOnEveryStartFailsTheBuildTypedAfterTheBoundedAttempts() throws Exception {
        Path executable = alwaysBusy();
        assertThatThrownBy(() -> CodexPool.builder()
                .member("busy", () -> client(executable))
                .startRetry(3, Duration.ofMillis(20), Duration.ofMillis(100))
                .build())
                .isInstanceOf(CodexTransportException.class)
                .hasMessageContaining("failed to initialize sqlite state runtime")
                .hasMessageContaining("database is locked");
        assertThat(Files.readAllLines(dir.resolve("busy-runs"))).hasSize(3);
    }

    @Test
    void anotherFailedStartIsNotTriedAgain() throws Exception {
        Path executable = dir.resolve("codex-broken");
        Files.writeString(executable, "#!/bin/sh\necho \"Error: unexpected argument\" >&2\necho x >> '"
                + dir.resolve("broken-runs") + "'\nexit 2\n");
        Files.setPosixFilePermissions(executable, PosixFilePermissions.fromString("rwx------"));
        assertThatThrownBy(() -> CodexPool.builder()
                .member("broken", () -> client(executable))
                .startRetry(3, Duration.ofMillis(20), Duration.ofMillis(100))
                .build())
                .isInstanceOf(CodexTransportException.class).hasMessageContaining("unexpected argument");
        assertThat(Files.readAllLines(dir.resolve("broken-runs"))).hasSize(1);
    }
}
