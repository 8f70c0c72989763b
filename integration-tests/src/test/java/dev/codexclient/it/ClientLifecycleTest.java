package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.awaitCondition;
import static dev.codexclient.it.ClientTestSupport.childProcess;
import static dev.codexclient.it.ClientTestSupport.codexThreads;
import static dev.codexclient.it.ClientTestSupport.failureOf;
import static dev.codexclient.it.ClientTestSupport.inMemory;
import static dev.codexclient.it.ClientTestSupport.openFileDescriptors;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexTurn;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.protocol.ModelListParams;
import dev.codexclient.protocol.ToolRequestUserInputResponse;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** What {@code close()} leaves behind: nothing (threads, child processes, file descriptors). */
class ClientLifecycleTest {
    private static final Duration WAIT = Duration.ofSeconds(5);
    private static final Duration SETTLE = Duration.ofSeconds(2);
    private static final int FD_TOLERANCE = 3;

    @Test
    void closeInMemoryLeavesNoCodexThreads() {
        Set<String> before = codexThreads();
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            CodexClient client = inMemory(fake).build();
            client.startThread().startTurn("hello").await(WAIT);
            assertThat(newThreads(before)).isNotEmpty();
            client.close();
        }
        awaitCondition("every codex- thread ends: " + newThreads(before), SETTLE, () -> newThreads(before).isEmpty());
    }

    @Test
    void closeOfChildProcessClientsLeavesNoThreadsProcessesOrFileDescriptors() {
        // Warm up class loading and JDK-internal descriptors (e.g. the process reaper) before the baseline.
        try (FakeCodexAppServer fake = new FakeCodexAppServer(); CodexClient client = childProcess(fake).build()) {
            client.startThread();
        }
        awaitCondition("warm-up children exit", SETTLE, () -> liveChildren().isEmpty());
        Set<String> threadsBefore = codexThreads();
        int fdsBefore = openFileDescriptors();
        assertThat(fdsBefore).isPositive();

        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            for (int i = 0; i < 3; i++) {
                CodexClient client = childProcess(fake).build();
                assertThat(liveChildren()).isNotEmpty();
                client.startThread().startTurn("round " + i).await(WAIT);
                client.close();
                awaitCondition("the child of round " + i + " exits", SETTLE, () -> liveChildren().isEmpty());
            }
        }
        awaitCondition("no child process remains", SETTLE, () -> liveDescendants().isEmpty());
        awaitCondition("every codex- thread ends: " + newThreads(threadsBefore), SETTLE,
                () -> newThreads(threadsBefore).isEmpty());
        awaitCondition("file descriptors back to " + fdsBefore + " (now " + openFileDescriptors() + ")", SETTLE,
                () -> openFileDescriptors() <= fdsBefore + FD_TOLERANCE);
    }

    @Test
    void closeIsIdempotentAndLaterCallsFailTyped() {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            CodexClient client = inMemory(fake).build();
            client.close();
            client.close();
            assertThat(client.isClosed()).isTrue();
            assertThatThrownBy(client::startThread).isInstanceOf(CodexTransportException.class);
            assertThat(failureOf(client.rpc().modelList(ModelListParams.builder().build()), WAIT))
                    .isInstanceOf(CodexTransportException.class);
        }
    }

    @Test
    void closeFailsARunningTurn() {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(turn -> turn.agentMessage("working").pause(Duration.ofSeconds(30)).completed());
            CodexClient client = inMemory(fake).build();
            CodexTurn turn = client.startThread().startTurn("long task");
            client.close();
            assertThat(failureOf(turn.result(), WAIT)).isInstanceOf(CodexTransportException.class);
            // Controls of a turn of a closed client do nothing harmful.
            assertThat(turn.deadline(Duration.ofMillis(10))).isSameAs(turn);
            assertThat(failureOf(turn.interruptAsync(), WAIT)).isInstanceOf(CodexTransportException.class);
        }
    }

    @Test
    void closeFromInsideAListenerReturnsPromptly() {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            AtomicReference<CodexClient> holder = new AtomicReference<>();
            CompletableFuture<Duration> closed = new CompletableFuture<>();
            CodexClient client = inMemory(fake).onNotification(n -> {
                if (n.method().equals("warning")) {
                    long start = System.nanoTime();
                    holder.get().close();
                    closed.complete(Duration.ofNanos(System.nanoTime() - start));
                }
            }).build();
            holder.set(client);
            fake.notify("warning", java.util.Map.of("message", "please close"));
            // Outside a callback, close waits up to 5 s for the listeners to drain; from inside one it must not (the
            // listener waiting is the one that would have to finish). So the bound is those 5 s: a close that waited
            // for itself takes them, a prompt one takes milliseconds, however loaded the machine.
            assertThat(closed.orTimeout(30, java.util.concurrent.TimeUnit.SECONDS).join())
                    .isLessThan(Duration.ofSeconds(5));
            assertThat(client.isClosed()).isTrue();
        }
    }

    @Test
    void closeCancelsRunningServerRequestHandlers() {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            AtomicReference<CompletableFuture<ToolRequestUserInputResponse>> handler = new AtomicReference<>();
            CodexClient client = inMemory(fake).userInput(p -> {
                CompletableFuture<ToolRequestUserInputResponse> never = new CompletableFuture<>();
                handler.set(never);
                return never;
            }).build();
            String threadId = client.startThread().id();
            fake.requestUserInput(threadId, "turn-1", "q", "Continue?");
            awaitCondition("the handler runs", () -> handler.get() != null);
            client.close();
            awaitCondition("the handler is cancelled", () -> handler.get().isCancelled());
        }
    }

    @Test
    void closeWakesACallerBlockedInStartTurn() {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.on("turn/start").noReply();
            CodexClient client = inMemory(fake).build();
            var thread = client.startThread();
            CompletableFuture<CodexTurn> starting = CompletableFuture.supplyAsync(() -> thread.startTurn("hi"));
            fake.takeRequest("turn/start", WAIT);
            client.close();
            // WAIT is below the request timeout: a caller that close() did not wake would still be waiting.
            assertThat(failureOf(starting, WAIT)).isInstanceOf(CodexTransportException.class);
        }
    }

    private static Set<String> newThreads(Set<String> before) {
        Set<String> now = new HashSet<>(codexThreads());
        now.removeAll(before);
        return now;
    }

    private static Set<Long> liveChildren() {
        return ProcessHandle.current().children().filter(ProcessHandle::isAlive).map(ProcessHandle::pid)
                .collect(Collectors.toSet());
    }

    private static Set<Long> liveDescendants() {
        return ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).map(ProcessHandle::pid)
                .collect(Collectors.toSet());
    }
}
