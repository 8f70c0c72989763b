package dev.codexclient.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.internal.transport.ProcessTree;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(30)
class StdioTransportTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final List<StdioTransport> opened = new ArrayList<>();

    @AfterEach
    void closeAll() {
        opened.forEach(StdioTransport::close);
    }

    private StdioTransport sh(String script) {
        return track(StdioTransport.builder().executable("sh").args("-c", script)
                .closeTimeout(Duration.ofMillis(500)).build());
    }

    private StdioTransport track(StdioTransport t) {
        opened.add(t);
        return t;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void deliversStdoutLinesThenTheExitCode() throws Exception {
        StdioTransport t = sh("printf '{\"a\":1}\\n\\n{\"b\":\"é\"}\\r\\n'; exit 0");
        RecordingSink sink = new RecordingSink();
        t.start(sink);
        TransportTermination end = sink.awaitClosed(WAIT);
        assertThat(sink.texts()).containsExactly("{\"a\":1}", "{\"b\":\"é\"}");
        assertThat(end.requested()).isFalse();
        assertThat(end.exitCode()).hasValue(0);
        assertThat(end.reason()).contains("exited");
        assertThat(sink.closedCount).hasValue(1);
    }

    @Test
    void echoesWhatIsSentInOrderOnOneReaderThread() throws Exception {
        StdioTransport t = track(StdioTransport.builder().executable("cat").args().build());
        RecordingSink sink = new RecordingSink();
        t.start(sink);
        List<String> sent = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            String m = "{\"id\":" + i + ",\"text\":\"" + "ü".repeat(i % 50) + "\"}";
            sent.add(m);
            t.send(utf8(m));
        }
        sink.awaitCount(500, WAIT);
        assertThat(sink.texts()).containsExactlyElementsOf(sent);
        long pid = t.process().orElseThrow().pid();
        assertThat(Set.copyOf(sink.threads)).containsExactly("codex-stdio-reader-" + pid);
        assertThat(t.describe()).contains("cat").contains("pid " + pid);

        t.close();
        TransportTermination end = sink.awaitClosed(WAIT);
        assertThat(end.requested()).isTrue();
        assertThat(end.exitCode()).hasValue(0);
        assertThat(sink.closedCount).hasValue(1);
    }

    @Test
    void childExitCarriesExitCodeAndRedactedStderrTail() throws Exception {
        StdioTransport t = sh("echo 'starting with key sk-abcdefghijklmnopqrstuvwxyz' >&2; "
                + "echo 'fatal: config is broken' >&2; exit 3");
        RecordingSink sink = new RecordingSink();
        t.start(sink);
        TransportTermination end = sink.awaitClosed(WAIT);
        assertThat(end.requested()).isFalse();
        assertThat(end.exitCode()).hasValue(3);
        assertThat(end.stderrTail()).contains("fatal: config is broken").contains("[REDACTED]")
                .doesNotContain("sk-abcdef");

        assertThatThrownBy(() -> t.send(utf8("{}")))
                .isInstanceOfSatisfying(CodexTransportException.class, e -> {
                    assertThat(e.exitCode()).hasValue(3);
                    assertThat(e.stderrTail()).contains("fatal: config is broken");
                    assertThat(e.getMessage()).contains("exit code 3").contains("fatal: config is broken");
                });
    }

    @Test
    void sendAfterCloseFailsTyped() throws Exception {
        StdioTransport t = track(StdioTransport.builder().executable("cat").args().build());
        RecordingSink sink = new RecordingSink();
        t.start(sink);
        t.close();
        assertThatThrownBy(() -> t.send(utf8("{}"))).isInstanceOf(CodexTransportException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void sendBeforeStartFailsTyped() {
        StdioTransport t = track(StdioTransport.builder().executable("cat").args().build());
        assertThatThrownBy(() -> t.send(utf8("{}"))).isInstanceOf(CodexTransportException.class)
                .hasMessageContaining("not started");
    }

    @Test
    void brokenPipeFailsTypedWithTheExitCode() throws Exception {
        // The child closes its stdin, says it is ready, and exits shortly after.
        StdioTransport t = sh("exec 0<&-; echo 'closing stdin' >&2; echo '{\"ready\":1}'; sleep 0.3; exit 5");
        RecordingSink sink = new RecordingSink();
        t.start(sink);
        sink.awaitMessage(m -> m.contains("ready"), WAIT);
        assertThatThrownBy(() -> {
            for (int i = 0; i < 100; i++) {
                t.send(utf8("{\"n\":" + i + "}"));
            }
        }).isInstanceOfSatisfying(CodexTransportException.class, e -> {
            assertThat(e.exitCode()).hasValue(5);
            assertThat(e.stderrTail()).contains("closing stdin");
            // The exit is the news; the broken pipe that preceded it is only the cause.
            assertThat(e.getMessage()).contains(": codex app-server exited (exit code 5)")
                    .doesNotContain("Broken pipe");
            assertThat(e.getCause()).isInstanceOf(IOException.class);
        });
        // By the time send() failed, the sink had been told of the exit.
        assertThat(sink.closedCount).hasValue(1);
    }

    @Test
    void closeWithZeroSkipsTheGracefulWaitOfAChildThatIgnoresItsStdin() throws Exception {
        // Does not read stdin, so closing it ends nothing; the builder's graceful wait is a minute.
        StdioTransport t = track(StdioTransport.builder().executable("sh").args("-c", "echo '{}'; exec sleep 600")
                .closeTimeout(Duration.ofSeconds(60)).build());
        RecordingSink sink = new RecordingSink();
        t.start(sink);
        sink.awaitCount(1, WAIT);
        ProcessHandle child = t.process().orElseThrow();

        long started = System.nanoTime();
        t.close(Duration.ZERO);
        Duration took = Duration.ofNanos(System.nanoTime() - started);

        assertThat(child.isAlive()).isFalse();
        // SIGTERM at once ends it; the minute of graceful wait is not spent (the test times out at 30 s).
        assertThat(took).isLessThan(Duration.ofSeconds(20));
        assertThat(sink.awaitClosed(WAIT).requested()).isTrue();
        assertThatThrownBy(() -> t.close(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void stderrFloodDoesNotDeadlockTheChild() throws Exception {
        // 32 MB of stderr, far beyond any pipe buffer, before the one stdout line.
        StdioTransport t = sh("head -c 33554432 /dev/zero | tr '\\000' 'x' | fold -w 1000 >&2; "
                + "echo '{\"done\":true}'; exit 0");
        RecordingSink sink = new RecordingSink();
        t.start(sink);
        TransportTermination end = sink.awaitClosed(Duration.ofSeconds(20));
        assertThat(sink.texts()).containsExactly("{\"done\":true}");
        assertThat(end.exitCode()).hasValue(0);
        assertThat(end.stderrTail().getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(16 * 1024);
        assertThat(end.stderrTail()).startsWith("xxxx");
    }

    @Test
    void stderrTailBoundsAreConfigurable() throws Exception {
        StdioTransport t = track(StdioTransport.builder().executable("sh")
                .args("-c", "for i in 1 2 3 4 5 6 7 8 9; do echo \"err $i\" >&2; done; exit 1")
                .stderrTailLines(3).build());
        RecordingSink sink = new RecordingSink();
        t.start(sink);
        TransportTermination end = sink.awaitClosed(WAIT);
        assertThat(end.stderrTail()).isEqualTo("err 7\nerr 8\nerr 9");
        assertThat(t.stderrTail()).isEqualTo("err 7\nerr 8\nerr 9");
    }

    @Test
    void oversizedLineFromTheChildIsSkippedAndTheNextOneArrives() throws Exception {
        StdioTransport t = track(StdioTransport.builder().executable("sh")
                .args("-c", "head -c 5000 /dev/zero | tr '\\000' a; echo; echo '{\"after\":1}'")
                .maxLineBytes(1024).build());
        RecordingSink sink = new RecordingSink();
        t.start(sink);
        sink.awaitClosed(WAIT);
        assertThat(sink.oversized).containsExactly(5000L);
        assertThat(sink.texts()).containsExactly("{\"after\":1}");
    }

    @Test
    void appliesWorkingDirectoryEnvironmentAndCodexHome(@TempDir Path dir) throws Exception {
        assumeTrue(System.getenv("HOME") != null, "needs HOME in the environment");
        Path home = Files.createDirectory(dir.resolve("codex-home"));
        StdioTransport t = track(StdioTransport.builder().executable("sh")
                .args("-c", "printf '{\"cwd\":\"%s\",\"codexHome\":\"%s\",\"home\":\"%s\",\"added\":\"%s\"}\\n' "
                        + "\"$(pwd -P)\" \"$CODEX_HOME\" \"${HOME-unset}\" \"$ADDED\"")
                .workingDirectory(dir)
                .codexHome(home)
                .environment("ADDED", "yes")
                .removeEnvironment("HOME")
                .build());
        RecordingSink sink = new RecordingSink();
        t.start(sink);
        sink.awaitClosed(WAIT);
        assertThat(sink.texts()).containsExactly("{\"cwd\":\"" + dir.toRealPath() + "\",\"codexHome\":\""
                + home.toAbsolutePath() + "\",\"home\":\"unset\",\"added\":\"yes\"}");
    }

    @Test
    void secretLookingEnvironmentValuesAreRedacted() throws Exception {
        StdioTransport t = track(StdioTransport.builder().executable("sh")
                .args("-c", "echo \"using $MY_SERVICE_KEY\" >&2; exit 2")
                .environment("MY_SERVICE_KEY", "plain-looking-credential-42").build());
        RecordingSink sink = new RecordingSink();
        t.start(sink);
        TransportTermination end = sink.awaitClosed(WAIT);
        assertThat(end.stderrTail()).isEqualTo("using [REDACTED]");
    }

    @Test
    void missingBinaryNamesItAndSaysHowToFix() {
        StdioTransport t = track(StdioTransport.builder().executable("codex-missing-binary-for-test").build());
        RecordingSink sink = new RecordingSink();
        assertThatThrownBy(() -> t.start(sink)).isInstanceOf(CodexTransportException.class)
                .hasMessageContaining("'codex-missing-binary-for-test' was not found on PATH")
                .hasMessageContaining("npm install -g @openai/codex")
                .hasMessageContaining("executable(");
        assertThat(sink.isClosed()).isFalse();
        assertThatThrownBy(() -> t.start(sink)).isInstanceOf(IllegalStateException.class);
        t.close();
    }

    @Test
    void missingPathAndNonExecutableFileAreExplained(@TempDir Path dir) throws IOException {
        Path missing = dir.resolve("nope/codex");
        assertThatThrownBy(() -> StdioTransport.builder().executable(missing).build().start(new RecordingSink()))
                .isInstanceOf(CodexTransportException.class)
                .hasMessageContaining(missing.toString()).hasMessageContaining("does not exist")
                .hasMessageContaining("@openai/codex");
        Path plain = Files.writeString(dir.resolve("codex"), "#!/bin/sh\n");
        assertThatThrownBy(() -> StdioTransport.builder().executable(plain).build().start(new RecordingSink()))
                .isInstanceOf(CodexTransportException.class)
                .hasMessageContaining(plain.toString()).hasMessageContaining("not executable")
                .hasMessageContaining("@openai/codex");
    }

    @Test
    void closeKillsAStubbornChildAndItsDescendants() throws Exception {
        // Neither the child nor the grandchild reacts to stdin closing or to SIGTERM.
        StdioTransport t = sh("trap '' TERM; (trap '' TERM; exec sleep 30) & echo \"{\\\"pid\\\":$!}\"; "
                + "while true; do sleep 1; done");
        RecordingSink sink = new RecordingSink();
        t.start(sink);
        long grandchild = pidFrom(sink.awaitMessage(m -> m.contains("pid"), WAIT));
        ProcessHandle child = t.process().orElseThrow();
        assertThat(ProcessHandle.of(grandchild)).isPresent();

        long started = System.nanoTime();
        t.close();
        Duration took = Duration.ofNanos(System.nanoTime() - started);

        assertThat(child.isAlive()).isFalse();
        assertThat(ProcessHandle.of(grandchild).filter(ProcessTree::isRunning)).isEmpty();
        // Graceful 0.5 s, SIGTERM and 2 s, then SIGKILL: about 2.5 s. A close that did not escalate would never
        // return (neither process reacts to anything else); the bound tells that from a slow machine, and no more.
        assertThat(took).as("graceful 0.5 s + terminate 2 s + kill").isLessThan(Duration.ofSeconds(30));
        TransportTermination end = sink.awaitClosed(WAIT);
        assertThat(end.requested()).isTrue();
        assertThat(sink.closedCount).hasValue(1);
    }

    @Test
    void closeKillsADescendantThatOutlivesAGracefulParent() throws Exception {
        // Like the npm launcher: the parent exits when stdin closes, the process it started would live on and
        // keep the stdout pipe open.
        StdioTransport t = sh("sleep 30 & echo \"{\\\"pid\\\":$!}\"; read line; exit 0");
        RecordingSink sink = new RecordingSink();
        t.start(sink);
        long grandchild = pidFrom(sink.awaitMessage(m -> m.contains("pid"), WAIT));
        t.close();
        assertThat(ProcessHandle.of(grandchild).filter(ProcessTree::isRunning)).isEmpty();
        TransportTermination end = sink.awaitClosed(WAIT);
        assertThat(end.exitCode()).hasValue(0);
    }

    @Test
    void closeUnblocksASendStuckOnAChildThatNeverReads() throws Exception {
        StdioTransport t = sh("exec sleep 30");
        RecordingSink sink = new RecordingSink();
        t.start(sink);
        // One message four times the pipe's 64 KiB: its write cannot end while the child does not read.
        byte[] chunk = utf8("{\"pad\":\"" + "p".repeat(256 * 1024) + "\"}");
        CompletableFuture<Throwable> sender = new CompletableFuture<>();
        Thread sending = new Thread(() -> {
            try {
                t.send(chunk);
                sender.complete(null);
            } catch (Throwable e) {
                sender.complete(e);
            }
        }, "stuck-sender");
        sending.start();
        awaitBlockedInAWrite(sending);
        assertThat(sender).isNotDone();

        t.close();

        assertThat(sender.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(CodexTransportException.class);
        assertThat(sink.awaitClosed(WAIT).requested()).isTrue();
        sending.join(WAIT.toMillis());
        assertThat(sending.isAlive()).isFalse();
    }

    /**
     * Waits until {@code thread} is inside the native write of a pipe: a send that has really begun and cannot go on,
     * which a fixed sleep could only hope for.
     */
    private static void awaitBlockedInAWrite(Thread thread) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            StackTraceElement[] stack = thread.getStackTrace();
            if (stack.length > 0 && stack[0].isNativeMethod()
                    && Arrays.stream(stack).anyMatch(f -> f.getClassName().equals("java.io.FileOutputStream"))) {
                return;
            }
            Thread.sleep(5);
        }
        throw new AssertionError("the sender never blocked in a write: " + Arrays.toString(thread.getStackTrace()));
    }

    @Test
    void anUnclosedTransportWhoseChildExitedReleasesItsPipes() throws Exception {
        runEchoOnce();
        long fdsBefore = openFds();
        for (int i = 0; i < 5; i++) {
            StdioTransport t = StdioTransport.builder().executable("sh").args("-c", "echo '{}'; exit 4").build();
            RecordingSink sink = new RecordingSink();
            t.start(sink);
            assertThat(sink.awaitClosed(WAIT).exitCode()).hasValue(4);
        }
        // The JDK closes a finished child's pipes on threads of its own: wait for it, bounded by WAIT as every wait
        // here (a shorter bound is a race with a loaded machine, not a check).
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (openFds() > fdsBefore && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        if (fdsBefore >= 0) {
            assertThat(openFds()).isLessThanOrEqualTo(fdsBefore);
        }
    }

    @Test
    void closeIsIdempotentAndDeliversOneTermination() throws Exception {
        StdioTransport t = track(StdioTransport.builder().executable("cat").args().build());
        RecordingSink sink = new RecordingSink();
        t.start(sink);
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> closers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Thread c = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                t.close();
            });
            c.start();
            closers.add(c);
        }
        go.countDown();
        for (Thread c : closers) {
            c.join(10_000);
        }
        t.close();
        sink.awaitClosed(WAIT);
        assertThat(sink.closedCount).hasValue(1);
        assertThatThrownBy(() -> t.start(new RecordingSink())).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void closeFromInsideTheSinkDoesNotDeadlock() throws Exception {
        StdioTransport t = track(StdioTransport.builder().executable("cat").args().build());
        RecordingSink recorder = new RecordingSink();
        t.start(new MessageSink() {
            @Override
            public void onMessages(MessageBuffer messages) {
                recorder.onMessages(messages);
                t.close();
            }

            @Override
            public void onClosed(TransportTermination termination) {
                recorder.onClosed(termination);
            }
        });
        t.send(utf8("{\"close\":\"me\"}"));
        TransportTermination end = recorder.awaitClosed(WAIT);
        assertThat(end.requested()).isTrue();
        assertThat(recorder.texts()).containsExactly("{\"close\":\"me\"}");
    }

    @Test
    void aThrowingSinkDoesNotStopTheReader() throws Exception {
        StdioTransport t = sh("printf '{\"n\":1}\\n{\"n\":2}\\n'");
        RecordingSink recorder = new RecordingSink();
        t.start(new MessageSink() {
            @Override
            public void onMessages(MessageBuffer messages) {
                recorder.onMessages(messages);
                throw new IllegalStateException("sink bug (expected by the test)");
            }

            @Override
            public void onClosed(TransportTermination termination) {
                recorder.onClosed(termination);
            }
        });
        recorder.awaitClosed(WAIT);
        assertThat(recorder.texts()).containsExactly("{\"n\":1}", "{\"n\":2}");
    }

    @Test
    void leavesNoThreadsOrFileDescriptorsBehind() throws Exception {
        runEchoOnce(); // warm up class loading and the JDK's own process machinery
        Set<String> threadsBefore = codexThreads();
        long fdsBefore = openFds();
        for (int i = 0; i < 5; i++) {
            runEchoOnce();
        }
        StdioTransport crashing = sh("exit 9");
        RecordingSink sink = new RecordingSink();
        crashing.start(sink);
        sink.awaitClosed(WAIT);
        crashing.close();

        long deadline = System.nanoTime() + WAIT.toNanos();
        while ((!threadsBefore.containsAll(codexThreads()) || openFds() > fdsBefore)
                && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(codexThreads()).isSubsetOf(threadsBefore);
        if (fdsBefore >= 0) {
            assertThat(openFds()).isLessThanOrEqualTo(fdsBefore);
        }
    }

    private void runEchoOnce() throws Exception {
        StdioTransport t = track(StdioTransport.builder().executable("cat").args().build());
        RecordingSink sink = new RecordingSink();
        t.start(sink);
        t.send(utf8("{\"ping\":1}"));
        sink.awaitMessage(m -> m.contains("ping"), WAIT);
        t.close();
        sink.awaitClosed(WAIT);
    }

    /**
     * Live {@code codex-} threads, without the pooled ones every client shares ({@code codex-shared-}), whose
     * numbers must be within their pools' ceilings.
     */
    static Set<String> codexThreads() {
        Set<String> names = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .collect(Collectors.toSet());
        assertThat(names.stream().filter(n -> n.startsWith("codex-shared-handler-")))
                .hasSizeLessThanOrEqualTo(dev.codexclient.internal.rpc.CallbackPool.HANDLER_THREADS);
        assertThat(names.stream().filter(n -> n.startsWith("codex-shared-callback-")))
                .hasSizeLessThanOrEqualTo(dev.codexclient.internal.rpc.CallbackPool.CALLBACK_THREADS);
        assertThat(names.stream().filter(n -> n.startsWith("codex-shared-timer"))).hasSizeLessThanOrEqualTo(1);
        return names.stream().filter(n -> n.startsWith("codex-") && !n.startsWith("codex-shared-"))
                .collect(Collectors.toSet());
    }

    static long openFds() throws IOException {
        Path fd = Path.of("/proc/self/fd");
        if (!Files.isDirectory(fd)) {
            return -1;
        }
        try (Stream<Path> s = Files.list(fd)) {
            return s.count();
        }
    }

    private static long pidFrom(String json) {
        Matcher m = Pattern.compile("\"pid\":(\\d+)").matcher(json);
        assertThat(m.find()).as("pid in %s", json).isTrue();
        return Long.parseLong(m.group(1));
    }
}
