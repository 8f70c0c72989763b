package dev.codexclient.internal.session;

import static dev.codexclient.internal.session.SessionHarness.threadResult;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.protocol.ThreadForkParams;
import dev.codexclient.protocol.ThreadInfo;
import dev.codexclient.protocol.ThreadListParams;
import dev.codexclient.protocol.ThreadResumeParams;
import dev.codexclient.protocol.ThreadStartParams;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * One implementation, two faces: each operation of an engine is sent once and finished either on the thread that
 * blocks for it ({@link Operation#join()}) or in a dependent of its call ({@link Operation#async()}). The blocking
 * face needs nothing but the answer: on a client whose callback executor runs nothing at all, every blocking call
 * still returns, while the same operation's future waits for the executor.
 */
class BlockingFacesTest {
    private static final String T = "t-1";
    private static final Duration WAIT = Duration.ofSeconds(10);

    @Test
    void everyBlockingCallOfAThreadAndOfTheClientReturnsWithoutACallbackThread() throws Exception {
        SessionHarness.SteppedExecutor callbacks = new SessionHarness.SteppedExecutor();
        try (SessionHarness h = new SessionHarness(false, callbacks)) {
            ThreadLink thread = h.startThread(T);
            // From now on the callback executor runs nothing unless the test says so; it never does below.
            callbacks.step();
            ScriptedPeer server = h.peer(0);
            ObjectNode described = threadResult(T, "idle");
            ObjectNode empty = ScriptedPeer.JSON.createObjectNode();

            assertThat(blocking(server, "thread/read", described, () -> thread.read().join()).id()).isEqualTo(T);
            blocking(server, "thread/name/set", empty, () -> thread.setName("n").join());
            blocking(server, "thread/unarchive", empty, () -> thread.unarchive().join());
            blocking(server, "thread/compact/start", empty, () -> thread.compact().join());
            assertThat(blocking(server, "thread/revert", described, () -> thread.revertTo("u-0").join()).id())
                    .isEqualTo(T);
            assertThat(blocking(server, "thread/fork", threadResult("t-2", "idle"), () -> thread.fork().join()).id())
                    .isEqualTo("t-2");
            assertThat(blocking(server, "thread/start", threadResult("t-3", "idle"), () -> h.runtime.startThread(
                    ThreadStartParams.builder().build(), List.of()).join()).id()).isEqualTo("t-3");
            assertThat(blocking(server, "thread/resume", described, () -> h.runtime.resumeThread(
                    ThreadResumeParams.builder().threadId(T).build(), List.of()).join()).id()).isEqualTo(T);
            assertThat(blocking(server, "thread/fork", threadResult("t-4", "idle"), () -> h.runtime.forkThread(
                    ThreadForkParams.builder().threadId(T).build()).join()).id()).isEqualTo("t-4");
            ObjectNode page = ScriptedPeer.JSON.createObjectNode();
            page.putArray("data").add(SessionHarness.thread(T, "idle"));
            List<ThreadInfo> all = blocking(server, "thread/list", page, () -> h.runtime.listAll(
                    ThreadListParams.builder().build()).join());
            assertThat(all).extracting(ThreadInfo::id).containsExactly(T);

            // The same operation's other face finishes in a dependent, on the executor that runs nothing here.
            CompletableFuture<ThreadInfo> async = thread.read().async();
            server.respond(server.take("thread/read"), described);
            assertThat(async).isNotDone();
            callbacks.runQueued();
            assertThat(async).isCompleted();
        }
    }

    /**
     * Runs {@code call} on a thread of its own, answers the request it sends with {@code result} (the test thread
     * is the connection's reader), and returns what the call returned.
     */
    private static <T> T blocking(ScriptedPeer server, String method, JsonNode result, Callable<T> call)
            throws Exception {
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread caller = new Thread(() -> {
            try {
                outcome.set(call.call());
            } catch (Throwable t) {
                outcome.set(t);
            }
        }, "caller of " + method);
        caller.start();
        server.awaitRequest(method, WAIT);
        server.respond(server.take(method), result);
        caller.join(WAIT.toMillis());
        assertThat(caller.isAlive()).as("the blocking %s returned", method).isFalse();
        if (outcome.get() instanceof Throwable t) {
            throw new AssertionError(method + " failed", t);
        }
        @SuppressWarnings("unchecked")
        T value = (T) outcome.get();
        return value;
    }
}
