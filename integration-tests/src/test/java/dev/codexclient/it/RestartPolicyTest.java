package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.WAIT;
import static dev.codexclient.it.ClientTestSupport.awaitCondition;
import static dev.codexclient.it.ClientTestSupport.failureOf;
import static dev.codexclient.it.ClientTestSupport.withClock;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.CodexClientBuilder;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.RestartPolicy;
import dev.codexclient.Subscription;
import dev.codexclient.TurnResult;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.errors.CodexServerRestartedException;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.telemetry.ConnectionReplaced;
import dev.codexclient.telemetry.Disconnected;
import dev.codexclient.telemetry.RestartCompleted;
import dev.codexclient.telemetry.RestartGaveUp;
import dev.codexclient.telemetry.ThreadNotResumed;
import dev.codexclient.telemetry.ThreadResumed;
import dev.codexclient.internal.time.ManualScheduler;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadListParams;
import dev.codexclient.protocol.ThreadListResponse;
import dev.codexclient.testkit.Fault;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.transport.Transport;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A lost connection is restored under the client's restart policy: against the fake, whose stored threads survive
 * a connection, with the client's clock moved by hand (backoff, budget, waits of calls made during the outage).
 */
@Timeout(60)
class RestartPolicyTest {
    private static final Duration FIRST_BACKOFF = Duration.ofMillis(100);

    private final ManualScheduler clock = new ManualScheduler();
    private final Recorder events = new Recorder();
    /** While set, opening a transport fails, as a server that cannot be started or reached. */
    private final AtomicBoolean unreachable = new AtomicBoolean();
    private final AtomicInteger opened = new AtomicInteger();

    private CodexClientBuilder restarting(FakeCodexAppServer fake, RestartPolicy policy) {
        return withClock(CodexClient.builder()
                .transportFactory(() -> open(fake))
                .restartPolicy(policy)
                .telemetryListener(events)
                .requestTimeout(Duration.ofSeconds(10))
                .initializeTimeout(Duration.ofSeconds(10)), clock);
    }

    private Transport open(FakeCodexAppServer fake) {
        if (unreachable.get()) {
            throw new CodexTransportException("connection refused");
        }
        opened.incrementAndGet();
        return fake.connectInMemory();
    }

    /**
     * Moves the clock to the next attempt, once it is scheduled (the listener may hear of the loss first): its
     * backoff is at most {@link #FIRST_BACKOFF}, far below the request timeouts also on the clock.
     */
    private void nextAttempt() {
        awaitCondition("the next attempt is scheduled",
                () -> clock.nextDelay().filter(d -> d.compareTo(FIRST_BACKOFF) <= 0).isPresent());
        clock.advance(FIRST_BACKOFF);
    }

    /**
     * Like {@link #nextAttempt()}, but moves the clock exactly to the attempt, whose backoff is jittered, and returns
     * that backoff: an attempt that restores the connection within its own task then reads the same time as one
     * that finishes after the clock stopped.
     */
    private Duration nextAttemptExactly() {
        awaitCondition("the next attempt is scheduled",
                () -> clock.nextDelay().filter(d -> d.compareTo(FIRST_BACKOFF) <= 0).isPresent());
        Duration backoff = clock.nextDelay().orElseThrow();
        clock.advance(backoff);
        return backoff;
    }

    private static RestartPolicy policy(int attempts) {
        return RestartPolicy.builder().maxAttempts(attempts).backoff(FIRST_BACKOFF, Duration.ofSeconds(1))
                .budget(100, Duration.ofMinutes(10)).build();
    }

    @Test
    void closingTheClientDuringAnOutageEndsTheTurnThatWasRunningAndTheCallsThatWait() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.pause(Duration.ofSeconds(30)).interrupted());
            CodexClient client = restarting(fake, policy(3)).build();
            CodexThread thread = client.startThread();
            CodexTurn running = thread.startTurn("long");

            // The loss is handled and the first attempt waits for its backoff on the clock, which stays put.
            fake.apply(Fault.exit(137));
            events.next(Disconnected.class);
            awaitCondition("the first attempt is scheduled", () -> clock.nextDelay().isPresent());
            CompletableFuture<ThreadListResponse> waiting = client.rpc().threadList(ThreadListParams.builder()
                    .build());

            client.close();
            assertThat(failureOf(running.result(), WAIT)).isInstanceOf(CodexTransportException.class)
                    .hasMessageContaining("closed");
            assertThat(failureOf(waiting, WAIT)).isInstanceOf(CodexTransportException.class);
            assertThat(client.isClosed()).isTrue();
            assertThat(opened).hasValue(1);
        }
    }

    @Test
    void anIdleConnectionLostIsRestoredTheHeldThreadResumedAndItsHandleAndListenersStayValid() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessage("after the restart").completed());
            try (CodexClient client = restarting(fake, policy(3)).build()) {
                CodexThread thread = client.startThread();
                List<ServerNotification> seen = new CopyOnWriteArrayList<>();
                Subscription listening = thread.onEvent(seen::add);

                fake.apply(Fault.exit(137));
                Disconnected lost = events.next(Disconnected.class);
                assertThat(lost.heldThreads()).isEqualTo(1);
                assertThat(lost.cause().getMessage()).contains("137");
                assertThat(client.isClosed()).isFalse();

                nextAttempt();
                ConnectionReplaced restored = events.next(ConnectionReplaced.class);
                assertThat(restored.attempt()).isEqualTo(1);
                assertThat(events.next(ThreadResumed.class).threadId()).isEqualTo(thread.id());
                assertThat(fake.connectionCount()).isEqualTo(2);
                assertThat(fake.takeRequest("thread/resume", WAIT).params().path("threadId").asText())
                        .isEqualTo(thread.id());

                TurnResult result = thread.startTurn("go on").await(WAIT);
                assertThat(result.finalText()).contains("after the restart");
                assertThat(client.thread(thread.id())).contains(thread);
                awaitCondition("the listener sees the new turn",
                        () -> seen.stream().anyMatch(n -> n instanceof ServerNotification.TurnCompleted));
                listening.close();
            }
        }
    }

    @Test
    void aTurnRunningAtTheLossEndsWithTheTypedRestartOutcomeAndTheNextTurnCompletes() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.enqueueTurn(t -> t.agentMessageDeltas("part").neverComplete());
            fake.enqueueTurn(t -> t.agentMessage("retried").completed());
            try (CodexClient client = restarting(fake, policy(3)).build()) {
                CodexThread thread = client.startThread();
                CodexTurn running = thread.startTurn("long work");
                CompletableFuture<Void> streaming = new CompletableFuture<>();
                running.onAgentMessageDelta(d -> streaming.complete(null));
                streaming.get(WAIT.toSeconds(), TimeUnit.SECONDS);

                fake.apply(Fault.exit(137));
                events.next(Disconnected.class);
                // Settled by the resume of its thread: the new server does not run it.
                assertThat(running.isDone()).isFalse();
                nextAttempt();
                assertThat(failureOf(running.result(), WAIT))
                        .isInstanceOfSatisfying(CodexServerRestartedException.class, e -> {
                            assertThat(e.threadId()).isEqualTo(thread.id());
                            assertThat(e.turnId()).contains(running.id());
                            assertThat(e.exitCode()).hasValue(137);
                        });
                events.next(ConnectionReplaced.class);
                assertThat(events.next(ThreadResumed.class).threadId()).isEqualTo(thread.id());
                assertThat(thread.startTurn("retry").await(WAIT).finalText()).contains("retried");
            }
        }
    }

    @Test
    void aCallMadeDuringTheOutageWaitsForTheRestoredConnection() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            try (CodexClient client = restarting(fake, policy(3)).build()) {
                fake.apply(Fault.exit(1));
                events.next(Disconnected.class);

                CompletableFuture<ThreadListResponse> waiting =
                        client.rpc().threadList(ThreadListParams.builder().build());
                assertThat(waiting).isNotDone();
                nextAttempt();
                assertThat(waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isNotNull();
                assertThat(fake.connectionCount()).isEqualTo(2);
            }
        }
    }

    /**
     * As codex does, the new server knows only the threads resumed on it. While the restore resumes the held
     * threads (the resume of one is held back here), a turn starts on a thread nobody held at the loss and a
     * listener is added to another: both threads are resumed on the restored connection, and the turn completes.
     */
    @Test
    void threadsFirstUsedWhileTheRestoreResumesAreResumedToo() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessage("done").completed());
            CompletableFuture<Void> release = new CompletableFuture<>();
            CompletableFuture<Void> resuming = new CompletableFuture<>();
            try (CodexClient client = restarting(fake, policy(3))
                    .transportFactory(() -> holdingBackResumes(open(fake), resuming, release)).build()) {
                CodexThread listened = client.startThread();
                Subscription listening = listened.onEvent(n -> { });
                CodexThread idle = client.startThread();
                CodexThread listenedLater = client.startThread();
                int sinceLoss = fake.requestCount();
                unknownUnlessResumedAfter(fake, sinceLoss);

                fake.apply(Fault.exit(137));
                events.next(Disconnected.class);
                nextAttempt();
                resuming.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                CompletableFuture<CodexTurn> started = idle.startTurnAsync("during the restore");
                Subscription late = listenedLater.onEvent(n -> { });
                release.complete(null);

                assertThat(started.get(WAIT.toSeconds(), TimeUnit.SECONDS).await(WAIT).finalText())
                        .contains("done");
                List<String> resumed = fake.requests().subList(sinceLoss, fake.requestCount()).stream()
                        .filter(r -> r.method().equals("thread/resume"))
                        .map(r -> r.params().path("threadId").asText()).toList();
                assertThat(resumed).contains(listened.id(), idle.id(), listenedLater.id());
                RestartCompleted recovered = events.future(RestartCompleted.class).get(WAIT.toSeconds(),
                        TimeUnit.SECONDS);
                assertThat(recovered.threadsResumed()).isEqualTo(3);
                assertThat(recovered.threadsNotResumed()).isZero();
                listening.close();
                late.close();
            }
        }
    }

    /**
     * {@code transport}, except that the first {@code thread/resume} the client sends (the test sends none before
     * the restore) waits for {@code release} before it reaches the server; {@code resuming} completes when it is
     * held back.
     */
    private static Transport holdingBackResumes(Transport transport, CompletableFuture<Void> resuming,
                                                CompletableFuture<Void> release) {
        return new Transport() {
            @Override
            public void start(dev.codexclient.transport.MessageSink sink) {
                transport.start(sink);
            }

            @Override
            public void send(byte[] message) {
                if (!resuming.isDone() && new String(message, java.nio.charset.StandardCharsets.UTF_8)
                        .contains("\"thread/resume\"")) {
                    resuming.complete(null);
                    release.thenRun(() -> transport.send(message));
                    return;
                }
                transport.send(message);
            }

            @Override
            public void close() {
                transport.close();
            }

            @Override
            public String describe() {
                return transport.describe();
            }
        };
    }

    @Test
    void aHeldThreadTheNewServerDoesNotHaveIsReportedAndTheRecoveryCompletesWithoutIt() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            try (CodexClient client = restarting(fake, policy(3)).build()) {
                CodexThread kept = client.startThread();
                CodexThread gone = client.startThread();
                fake.on("thread/resume", r -> r.params().path("threadId").asText().equals(gone.id()))
                        .respondError(-32600, "no rollout found for thread id " + gone.id());
                Subscription keptListener = kept.onEvent(n -> { });
                gone.onEvent(n -> { });

                fake.apply(Fault.exit(137));
                events.next(Disconnected.class);
                // The clock stops exactly at the jittered backoff: the downtime is known to the nanosecond.
                Duration backoff = nextAttemptExactly();

                events.next(ConnectionReplaced.class);
                RestartCompleted recovered = events.future(RestartCompleted.class).get(WAIT.toSeconds(),
                        TimeUnit.SECONDS);
                ThreadNotResumed notResumed = events.future(ThreadNotResumed.class).join();
                assertThat(notResumed.threadId()).isEqualTo(gone.id());
                assertThat(notResumed.cause()).isInstanceOfSatisfying(CodexRpcException.class,
                        e -> assertThat(e.getMessage()).contains("no rollout found"));
                assertThat(events.future(ThreadResumed.class).join().threadId()).isEqualTo(kept.id());
                assertThat(recovered.attempts()).isEqualTo(1);
                assertThat(recovered.threadsResumed()).isEqualTo(1);
                assertThat(recovered.threadsNotResumed()).isEqualTo(1);
                assertThat(recovered.downtime()).isEqualTo(backoff);
                assertThat(client.thread(gone.id())).isEmpty();
                keptListener.close();
            }
        }
    }

    /**
     * From now on {@code turn/start} fails with codex's "thread not found" for a thread not resumed since the
     * fake's request number {@code since}.
     */
    private static void unknownUnlessResumedAfter(FakeCodexAppServer fake, int since) {
        fake.on("turn/start", req -> {
            String threadId = req.params().path("threadId").asText();
            List<dev.codexclient.testkit.RecordedRequest> later = fake.requests();
            return later.subList(since, later.size()).stream().noneMatch(r -> r.method().equals("thread/resume")
                    && r.params().path("threadId").asText().equals(threadId));
        }).always().respondError(-32600, "thread not found");
    }

    @Test
    void aCallWaitingForTheRestoreFailsWhenItsTimeoutPassesFirst() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            try (CodexClient client = restarting(fake, policy(3)).build()) {
                fake.apply(Fault.exit(1));
                events.next(Disconnected.class);

                CompletableFuture<ThreadListResponse> waiting = client.rpc().withTimeout(Duration.ofMillis(40))
                        .threadList(ThreadListParams.builder().build());
                clock.advance(Duration.ofMillis(39));
                assertThat(waiting).isNotDone();
                clock.advance(Duration.ofMillis(1));
                assertThat(failureOf(waiting, WAIT)).isInstanceOf(CodexTimeoutException.class)
                        .hasMessageContaining("waiting for the connection to be restarted");
                // The outage goes on and ends; the client works.
                nextAttempt();
                events.next(ConnectionReplaced.class);
                assertThat(client.startThread().id()).isNotEmpty();
            }
        }
    }

    @Test
    void afterMaxAttemptsThePolicyGivesUpAndEverythingWaitingFailsTyped() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            CodexClient client = restarting(fake, policy(2)).build();
            try {
                CodexThread thread = client.startThread();
                Subscription listening = thread.onEvent(n -> { });
                unreachable.set(true);
                fake.apply(Fault.exit(1));
                events.next(Disconnected.class);
                CompletableFuture<ThreadListResponse> waiting = client.rpc().withTimeout(Duration.ofHours(1))
                        .threadList(ThreadListParams.builder().build());

                CompletableFuture<RestartGaveUp> gaveUp = events.future(RestartGaveUp.class);
                awaitCondition("the policy gives up", () -> {
                    clock.advance(Duration.ofMillis(50));
                    return gaveUp.isDone();
                });
                assertThat(gaveUp.join().attempts()).isEqualTo(2);
                assertThat(gaveUp.join().cause().getMessage()).contains("after 2 attempts")
                        .contains("connection refused");
                assertThat(failureOf(waiting, WAIT)).isInstanceOf(CodexTransportException.class)
                        .hasMessageContaining("gave up");
                assertThat(client.isClosed()).isTrue();
                assertThatThrownBy(client::startThread).isInstanceOf(CodexTransportException.class);
                assertThat(client.thread(thread.id())).isEmpty();
                listening.close();
            } finally {
                client.close();
            }
            assertThat(opened.get()).isEqualTo(1);
        }
    }

    @Test
    void theBudgetBoundsAttemptsAcrossOutages() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            RestartPolicy oneInTenMinutes = RestartPolicy.builder().maxAttempts(5)
                    .backoff(FIRST_BACKOFF, Duration.ofSeconds(1)).budget(1, Duration.ofMinutes(10)).build();
            try (CodexClient client = restarting(fake, oneInTenMinutes).build()) {
                fake.apply(Fault.exit(1));
                events.next(Disconnected.class);
                nextAttempt();
                events.next(ConnectionReplaced.class);
                events.next(RestartCompleted.class);

                fake.apply(Fault.exit(1));
                events.next(Disconnected.class);
                CompletableFuture<RestartGaveUp> gaveUp = events.future(RestartGaveUp.class);
                nextAttempt();
                assertThat(gaveUp.get(WAIT.toSeconds(), TimeUnit.SECONDS).cause().getMessage())
                        .contains("budget of 1 attempts");
                // The budget refused this outage's only attempt: none was made.
                assertThat(gaveUp.join().attempts()).isZero();
                assertThat(client.isClosed()).isTrue();
                assertThat(opened.get()).isEqualTo(2);
            }
        }
    }

    @Test
    void closingDuringTheOutageEndsItAndFailsTheWaitingCalls() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            CodexClient client = restarting(fake, policy(3)).build();
            fake.apply(Fault.exit(1));
            events.next(Disconnected.class);
            CompletableFuture<ThreadListResponse> waiting = client.rpc().threadList(ThreadListParams.builder().build());
            client.close();
            assertThat(failureOf(waiting, WAIT)).isInstanceOf(CodexTransportException.class)
                    .hasMessageContaining("closed");
            assertThat(client.isClosed()).isTrue();
            assertThat(opened.get()).isEqualTo(1);
        }
    }

    @Test
    void aSingleTransportCannotBeRestarted() {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            assertThatThrownBy(() -> CodexClient.builder().transport(fake.connectInMemory())
                    .restartPolicy(RestartPolicy.defaults()).build())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("transportFactory");
        }
    }

    /** Records the recovery events, in order. */
    static final class Recorder implements CodexTelemetryListener {
        private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
        private final List<Object> all = new CopyOnWriteArrayList<>();
        private final List<java.util.function.Consumer<Object>> waiters = new CopyOnWriteArrayList<>();

        @Override
        public void disconnected(Disconnected event) {
            add(event);
        }

        @Override
        public void connectionReplaced(ConnectionReplaced event) {
            add(event);
        }

        @Override
        public void threadResumed(ThreadResumed event) {
            add(event);
        }

        @Override
        public void threadNotResumed(ThreadNotResumed event) {
            add(event);
        }

        @Override
        public void restartCompleted(RestartCompleted event) {
            add(event);
        }

        @Override
        public void restartGaveUp(RestartGaveUp event) {
            add(event);
        }

        private synchronized void add(Object event) {
            all.add(event);
            queue.add(event);
            waiters.forEach(w -> w.accept(event));
        }

        /** The next recovery event, which must be of {@code type}. */
        <T> T next(Class<T> type) throws InterruptedException {
            Object e = queue.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(e).as("the next recovery event").isInstanceOf(type);
            return type.cast(e);
        }

        /** Completes with the first event of {@code type}, recorded already or to come. */
        synchronized <T> CompletableFuture<T> future(Class<T> type) {
            CompletableFuture<T> f = new CompletableFuture<>();
            all.stream().filter(type::isInstance).findFirst().map(type::cast).ifPresent(f::complete);
            if (!f.isDone()) {
                waiters.add(e -> {
                    if (type.isInstance(e)) {
                        f.complete(type.cast(e));
                    }
                });
            }
            return f;
        }
    }
}
