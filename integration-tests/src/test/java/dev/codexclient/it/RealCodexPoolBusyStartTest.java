package dev.codexclient.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.pool.CodexPool;
import dev.codexclient.pool.PooledThread;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.ModelStep;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pool member whose server cannot start yet because codex found its state database busy: its start is tried again
 * and the member serves, instead of the pool failing or counting the member dead. The fault is an executable that
 * writes codex's own start error ("failed to initialize sqlite state runtime …", then SQLite's "database is locked")
 * and exits 1 a given number of times before it runs the real codex. {@link PoolBusyStartTest} has the starts that
 * never reach codex: busy on every start, and another failure.
 */
@Tag("real-codex")
@Timeout(180)
class RealCodexPoolBusyStartTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @RegisterExtension
    final RealCodexFixture codex = new RealCodexFixture();

    @TempDir
    Path dir;

    /**
     * An executable that fails its first {@code busyStarts} runs as codex does on a locked state database, then runs
     * the real codex with the same arguments; it counts its runs in {@code runs()}.
     */
    private Path busyFirst(int busyStarts) throws IOException {
        Path script = dir.resolve("codex-busy-" + busyStarts);
        Path counter = dir.resolve("runs-" + busyStarts);
        Files.writeString(script, """
                #!/bin/sh
                n=$(cat '%1$s' 2>/dev/null || echo 0)
                n=$((n + 1))
                echo "$n" > '%1$s'
                if [ "$n" -le %2$d ]; then
                  echo "Error: failed to initialize sqlite state runtime under $CODEX_HOME: failed to initialize \
                state runtime at $CODEX_HOME: failed to open state DB at $CODEX_HOME/state_5.sqlite: error returned \
                from database: (code: 5) database is locked" >&2
                  exit 1
                fi
                exec '%3$s' "$@"
                """.formatted(counter, busyStarts, codex.codexBinary()));
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        return script;
    }

    private int runs(int busyStarts) throws IOException {
        return Integer.parseInt(Files.readString(dir.resolve("runs-" + busyStarts)).trim());
    }

    @Test
    void aStartThatFindsTheStateDatabaseBusyIsTriedAgainAndTheMemberServes() throws Exception {
        codex.model.whenAlways(r -> r.lastUserText().startsWith("hello"), ModelStep.reply("hi"));
        Path executable = busyFirst(2);
        Set<String> threadsBefore = ClientTestSupport.codexThreads();
        try (CodexPool pool = CodexPool.builder()
                .member("busy", () -> codex.clientBuilder().codexBinary(executable).build())
                .startRetry(4, Duration.ofMillis(20), Duration.ofMillis(100))
                .build()) {
            assertThat(runs(2)).isEqualTo(3);
            assertThat(pool.stats().get(0).healthy()).isTrue();
            PooledThread thread = pool.startThread(codex.threadParams().build());
            assertThat(thread.startTurn("hello").await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
        }
        RealCodexKillTest.assertNoLeaks(threadsBefore);
    }
}
