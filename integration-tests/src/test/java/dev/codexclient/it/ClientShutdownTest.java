package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.awaitCondition;
import static dev.codexclient.it.ClientTestSupport.childProcess;
import static dev.codexclient.it.ClientTestSupport.failureOf;
import static dev.codexclient.it.ClientTestSupport.inMemory;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.CodexClient;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.protocol.ModelListParams;
import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.Fault;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a client ends: a failed handshake, a bounded close, what a pending call is told, and the server process a
 * stdio client exposes. Against the fake as a real child process, so processes and pipes are real.
 *
 * <p>The bounds on elapsed time here are structural, not tight: each test configures a graceful wait of a minute and
 * asserts an end far below it, which the kill path reaches in a second or two and a graceful wait never could.
 */
@ExtendWith(CodexTestExtension.class)
@Timeout(120)
class ClientShutdownTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    /** The graceful wait the tests configure; the kill path must end far below it. */
    private static final Duration LONG_GRACE = Duration.ofSeconds(60);
    private static final Duration FAR_BELOW_LONG_GRACE = Duration.ofSeconds(20);

    @Test
    void aHandshakeTheServerNeverAnswersFailsWithoutTheGracefulWaitAndKillsTheServer(FakeCodexAppServer fake) {
        // A wedged server: initialize is never answered, and closing the server's stdin does not end it.
        fake.on("initialize").fault(Fault.hang());
        Set<Long> before = liveChildren();
        long start = System.nanoTime();
        assertThatThrownBy(() -> childProcess(fake)
                .initializeTimeout(Duration.ofSeconds(5))
                .closeTimeout(LONG_GRACE)                          // does not apply to a failed handshake
                .stdio(s -> s.closeTimeout(LONG_GRACE))
                .build())
                .isInstanceOfSatisfying(CodexTimeoutException.class,
                        e -> assertThat(e.method()).isEqualTo("initialize"));
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        // The hang was in effect: the fake received initialize, so the relay no longer exits when its stdin closes.
        assertThat(fake.takeRequest("initialize", WAIT).method()).isEqualTo("initialize");
        // Only a signal ends the wedged relay: it is gone by the time build() returns, and build() did not wait
        // the graceful minute first.
        assertThat(newLive(before)).as("the server process after build() failed").isEmpty();
        assertThat(elapsed).isLessThan(FAR_BELOW_LONG_GRACE);
    }

    @Test
    void closeTimeoutBoundsTheCloseOfAServerThatDoesNotExitOnItsOwn(FakeCodexAppServer fake) {
        CodexClient client = childProcess(fake)
                .stdio(s -> s.closeTimeout(LONG_GRACE))   // the transport's own wait ...
                .closeTimeout(Duration.ofMillis(200))             // ... which the client's bound replaces
                .build();
        ProcessHandle server = client.serverProcess().orElseThrow();
        fake.apply(Fault.hang());
        CompletableFuture<?> pending = client.rpc().modelList(ModelListParams.builder().build());
        long start = System.nanoTime();
        client.close();
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        assertThat(server.isAlive()).as("the wedged server after close()").isFalse();
        assertThat(elapsed).isLessThan(FAR_BELOW_LONG_GRACE);
        assertThat(failureOf(pending, WAIT)).isInstanceOf(CodexTransportException.class)
                .hasMessage("the client was closed");
    }

    @Test
    void aPlainCloseTellsPendingCallsTheClientWasClosedWithoutExitCodeOrStderr(FakeCodexAppServer fake) {
        CodexClient client = childProcess(fake).build();
        // codex writes warnings to stderr at start-up, as the real one does.
        fake.apply(Fault.stderr("WARNING: proceeding, even though we could not create PATH aliases\n"));
        fake.on("model/list").noReply();
        CompletableFuture<?> pending = client.rpc().modelList(ModelListParams.builder().build());
        fake.takeRequest("model/list", WAIT);
        client.close();
        assertThat(failureOf(pending, WAIT)).isInstanceOfSatisfying(CodexTransportException.class, e -> {
            assertThat(e.getMessage()).isEqualTo("the client was closed");
            assertThat(e.exitCode()).isEmpty();
            assertThat(e.stderrTail()).isEmpty();
        });
        // So is a call made afterwards.
        assertThat(failureOf(client.rpc().modelList(ModelListParams.builder().build()), WAIT))
                .isInstanceOf(CodexTransportException.class).hasMessageNotContaining("stderr")
                .hasMessageNotContaining("exit code");
    }

    @Test
    void aServerThatExitsDuringTheHandshakeIsReportedByItsExitAndCode(FakeCodexAppServer fake) {
        fake.on("initialize").fault(Fault.exit(3));
        assertThatThrownBy(() -> childProcess(fake).build())
                .isInstanceOfSatisfying(CodexTransportException.class, e -> {
                    assertThat(e.exitCode()).hasValue(3);
                    assertThat(e.getMessage()).startsWith("the connection to stdio: ")
                            .contains(" ended: codex app-server exited (exit code 3)");
                });
    }

    /**
     * A server that dies at once can be noticed three ways (the reader sees the exit, the write of initialize finds
     * the pipe broken, or initialize is sent after the exit was seen); whichever it is, the user reads the same
     * report. Twenty starts make each of the races likely to show; a shell that exits at once is the fastest
     * server death there is.
     */
    @Test
    void aServerThatDiesAtStartUpIsReportedTheSameWayEveryTime() {
        List<String> messages = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            // Odd runs close stdin first, so that the write of initialize finds the pipe broken while the child lives.
            String script = (i % 2 == 0 ? "" : "exec 0<&-; ") + "echo 'fatal: cannot load config' >&2; exit 3";
            CodexTransportException e = (CodexTransportException) org.assertj.core.api.Assertions.catchThrowable(
                    () -> CodexClient.builder().command(List.of("/bin/sh", "-c", script))
                            .initializeTimeout(WAIT).build());
            assertThat(e).as("run %d", i).isNotNull();
            assertThat(e.exitCode()).as("run %d: %s", i, e.getMessage()).hasValue(3);
            assertThat(e.stderrTail()).as("run %d", i).contains("fatal: cannot load config");
            messages.add(e.getMessage().replaceAll("\\(pid \\d+\\)", "(pid N)"));
        }
        assertThat(messages).allSatisfy(m -> assertThat(m)
                .startsWith("the connection to stdio: sh -c ")
                .contains(" ended: codex app-server exited (exit code 3)\n--- last stderr lines ---\n"
                        + "fatal: cannot load config")
                .doesNotContain("Broken pipe").doesNotContain("cannot send"));
        assertThat(messages.stream().map(m -> m.replace("exec 0<&-; ", "")).collect(Collectors.toSet()))
                .hasSize(1);
    }

    @Test
    void aStdioClientExposesItsServerProcess(FakeCodexAppServer fake) {
        Set<Long> before = liveChildren();
        CodexClient client = childProcess(fake).build();
        ProcessHandle server = client.serverProcess().orElseThrow();
        assertThat(newLive(before)).containsExactly(server.pid());
        assertThat(server.isAlive()).isTrue();
        client.close();
        assertThat(server.isAlive()).isFalse();
        assertThat(client.serverProcess()).hasValueSatisfying(p -> assertThat(p.pid()).isEqualTo(server.pid()));

        try (CodexClient inMemory = inMemory(fake).build()) {
            assertThat(inMemory.serverProcess()).isEmpty();
        }
    }

    @Test
    void killingTheServerThroughItsHandleFailsPendingCallsWithItsExit(FakeCodexAppServer fake) {
        try (CodexClient client = childProcess(fake).build()) {
            fake.on("model/list").noReply();
            CompletableFuture<?> pending = client.rpc().modelList(ModelListParams.builder().build());
            fake.takeRequest("model/list", WAIT);
            assertThat(client.serverProcess().orElseThrow().destroyForcibly()).isTrue();
            assertThat(failureOf(pending, WAIT)).isInstanceOfSatisfying(CodexTransportException.class, e -> {
                assertThat(e.exitCode()).hasValue(137);   // 128 + SIGKILL
                assertThat(e.getMessage()).contains("exited (exit code 137)");
            });
            awaitCondition("the client sees the end", client::isClosed);
        }
    }

    @Test
    void settingsOfTheSpawnedServerAreRejectedWithATransportOfYourOwn(FakeCodexAppServer fake, @TempDir Path home) {
        assertThatThrownBy(() -> CodexClient.builder().transport(fake.connectInMemory()).codexHome(home)
                .environment("RUST_LOG", "debug").build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("transport(...)")
                .hasMessageContaining("codexHome(...), environment(...)")
                .hasMessageContaining("StdioTransport.builder()");
        assertThatThrownBy(() -> CodexClient.builder().codexBinary(Path.of("/opt/codex/bin/codex"))
                .command(List.of("/opt/codex/bin/codex", "app-server")).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("codexBinary(...) and command(...)");
        // A transport of your own with the client's own settings is fine, closeTimeout included.
        try (CodexClient client = CodexClient.builder().transport(fake.connectInMemory())
                .closeTimeout(Duration.ofSeconds(1)).requestTimeout(WAIT).build()) {
            assertThat(client.startThread().id()).isNotBlank();
        }
    }

    private static Set<Long> liveChildren() {
        return ProcessHandle.current().children().filter(ProcessHandle::isAlive).map(ProcessHandle::pid)
                .collect(Collectors.toSet());
    }

    private static Set<Long> newLive(Set<Long> before) {
        Set<Long> now = liveChildren();
        now.removeAll(before);
        return now;
    }
}
