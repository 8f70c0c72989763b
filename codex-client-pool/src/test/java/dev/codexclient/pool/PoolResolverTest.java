package dev.codexclient.pool;

import static dev.codexclient.pool.PoolTestSupport.WAIT;
import static dev.codexclient.pool.PoolTestSupport.awaitCondition;
import static dev.codexclient.pool.PoolTestSupport.failureOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexTurn;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexPoolRejectedException;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.telemetry.PoolMemberAdded;
import dev.codexclient.telemetry.PoolMemberRemoved;
import dev.codexclient.telemetry.PooledThreadMoved;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Members from a resolver, on a manual clock: the pool follows the answer as it changes (new endpoints become
 * members, members no longer named drain and then close, a draining member named again comes back), and a failed
 * answer changes nothing.
 */
@Timeout(60)
class PoolResolverTest {
    private static final Duration EVERY = Duration.ofSeconds(30);

    private final ManualTimer clock = new ManualTimer();
    private final Map<String, FakeCodexAppServer> fakes = new LinkedHashMap<>();
    private final Map<String, List<CodexClient>> clients = new LinkedHashMap<>();
    private final AtomicReference<List<String>> answer = new AtomicReference<>(List.of());
    private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
    private final List<String> events = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeFakes() {
        fakes.values().forEach(FakeCodexAppServer::close);
    }

    private FakeCodexAppServer fake(String name) {
        return fakes.computeIfAbsent(name, n -> new FakeCodexAppServer());
    }

    /** Endpoints named after their fake, with an address that is not a WebSocket (checked by a cheap call). */
    private MemberResolver resolver() {
        return () -> {
            RuntimeException e = failure.get();
            if (e != null) {
                throw e;
            }
            List<PoolEndpoint> out = new ArrayList<>();
            for (String name : answer.get()) {
                out.add(new PoolEndpoint(name, URI.create("fake:" + name)));
            }
            return out;
        };
    }

    private CodexClient client(PoolEndpoint endpoint) {
        CodexClient c = CodexClient.builder().transportFactory(fake(endpoint.name())::connectInMemory)
                .requestTimeout(Duration.ofSeconds(10)).initializeTimeout(Duration.ofSeconds(10)).build();
        clients.computeIfAbsent(endpoint.name(), n -> new ArrayList<>()).add(c);
        return c;
    }

    private CodexPool pool() {
        return pool(Duration.ofMinutes(10));
    }

    private CodexPool pool(Duration drainTimeout) {
        return pool(drainTimeout, false);
    }

    private CodexPool pool(Duration drainTimeout, boolean sharedStorage) {
        CodexTelemetryListener listener = new CodexTelemetryListener() {
            @Override
            public void poolMemberAdded(PoolMemberAdded event) {
                events.add("added " + event.member() + " " + event.address().orElseThrow());
            }

            @Override
            public void poolMemberRemoved(PoolMemberRemoved event) {
                events.add("removed " + event.member() + " threads=" + event.threads() + " turns="
                        + event.runningTurns());
            }

            @Override
            public void pooledThreadMoved(PooledThreadMoved event) {
                events.add("moved " + event.threadId() + " " + event.fromMember() + "->" + event.toMember());
            }
        };
        return PoolProbe.useTimer(CodexPool.builder(), clock).resolver(resolver(), this::client)
                .resolveEvery(EVERY).healthCheckEvery(Duration.ZERO, Duration.ofSeconds(5)).telemetryListener(listener)
                .drainTimeout(drainTimeout).sharedStorage(sharedStorage).build();
    }

    private static List<String> names(CodexPool pool) {
        return pool.stats().stream().map(s -> s.name() + ":" + s.state()).toList();
    }

    @Test
    void theMembersFollowTheAnswerAndARemovedMemberDrainsBeforeItCloses() throws Exception {
        fake("a").onTurnStart(t -> t.pause(Duration.ofSeconds(30)).interrupted());
        answer.set(List.of("a", "b"));
        try (CodexPool pool = pool()) {
            assertThat(names(pool)).containsExactly("a:READY", "b:READY");
            assertThat(events).containsExactly("added a fake:a", "added b fake:b");
            PooledThread onA = pool.startThread();
            PooledThread onB = pool.startThread();
            assertThat(List.of(onA.memberName(), onB.memberName())).containsExactly("a", "b");
            CodexTurn running = onA.startTurnAsync("long").get(WAIT.toSeconds(), TimeUnit.SECONDS);

            // Nothing changes before the interval.
            answer.set(List.of("b", "c"));
            clock.advance(EVERY.minusSeconds(1));
            assertThat(names(pool)).containsExactly("a:READY", "b:READY");

            clock.advance(Duration.ofSeconds(1));
            assertThat(names(pool)).containsExactly("a:DRAINING", "b:READY", "c:READY");
            assertThat(events).containsSubsequence("removed a threads=1 turns=1", "added c fake:c");
            // A draining member takes no new thread and no new turn; its running turn goes on.
            for (int i = 0; i < 4; i++) {
                assertThat(pool.startThread().memberName()).isIn("b", "c");
            }
            assertThat(failureOf(onA.startTurnAsync("more"), WAIT)).isInstanceOf(CodexPoolRejectedException.class)
                    .hasMessageContaining("was removed from the pool and drains");
            assertThat(clients.get("a").get(0).isClosed()).isFalse();

            // Its turn ends: it closes and leaves the pool.
            running.interruptAsync();
            assertThat(running.await(WAIT).status()).isEqualTo(TurnStatus.INTERRUPTED);
            awaitCondition("the drained member leaves", () -> names(pool).equals(List.of("b:READY", "c:READY")));
            assertThat(clients.get("a").get(0).isClosed()).isTrue();
            assertThat(onB.startTurn("still here").await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
        }
        assertThat(clients.values().stream().flatMap(List::stream)).allMatch(CodexClient::isClosed);
    }

    @Test
    void aMemberNamedAgainWhileItDrainsComesBackWithItsClient() throws Exception {
        fake("a").onTurnStart(t -> t.pause(Duration.ofSeconds(30)).interrupted());
        answer.set(List.of("a"));
        try (CodexPool pool = pool()) {
            PooledThread thread = pool.startThread();
            CodexTurn running = thread.startTurnAsync("long").get(WAIT.toSeconds(), TimeUnit.SECONDS);
            answer.set(List.of());
            clock.advance(EVERY);
            assertThat(names(pool)).containsExactly("a:DRAINING");
            assertThatThrownBy(pool::startThread).isInstanceOf(CodexPoolRejectedException.class);

            answer.set(List.of("a"));
            clock.advance(EVERY);
            assertThat(names(pool)).containsExactly("a:READY");
            assertThat(clients.get("a")).hasSize(1);
            running.interruptAsync();
            running.await(WAIT);
            fake("a").onTurnStart(t -> t.agentMessage("back").completed());
            assertThat(thread.startTurn("again").await(WAIT).finalText()).isEqualTo("back");
            assertThat(events).containsExactly("added a fake:a", "removed a threads=1 turns=1", "added a fake:a");
        }
    }

    @Test
    void aFailedAnswerKeepsTheMembersAndAnEmptyPoolRejectsTyped() {
        answer.set(List.of());
        try (CodexPool pool = pool()) {
            assertThat(pool.stats()).isEmpty();
            assertThatThrownBy(pool::startThread).isInstanceOf(CodexPoolRejectedException.class)
                    .hasMessageContaining("no member");
            answer.set(List.of("a", "b"));
            clock.advance(EVERY);
            assertThat(names(pool)).containsExactly("a:READY", "b:READY");

            failure.set(new IllegalStateException("the name server is away"));
            answer.set(List.of());
            clock.advance(EVERY);
            assertThat(names(pool)).containsExactly("a:READY", "b:READY");
            assertThat(pool.startThread().memberName()).isEqualTo("a");

            failure.set(null);
            answer.set(List.of("b"));
            clock.advance(EVERY);
            // a has a thread but nothing runs: it drains at once and closes.
            assertThat(names(pool)).containsExactly("b:READY");
        }
    }

    @Test
    void aFactoryThatFailsLeavesTheEndpointOutUntilTheNextAnswer() {
        AtomicInteger calls = new AtomicInteger();
        answer.set(List.of("a"));
        try (CodexPool pool = PoolProbe.useTimer(CodexPool.builder(), clock).resolver(resolver(), e -> {
            if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("not yet");
            }
            return client(e);
        }).resolveEvery(EVERY).healthCheckEvery(Duration.ZERO, Duration.ofSeconds(5)).build()) {
            assertThat(pool.stats()).isEmpty();
            clock.advance(EVERY);
            assertThat(names(pool)).containsExactly("a:READY");
        }
    }

    @Test
    void aDrainingMemberWhoseTurnNeverEndsIsClosedAtItsDrainTimeoutFailingTheTurnTyped() throws Exception {
        Duration drainTimeout = Duration.ofMinutes(2);
        fake("a").onTurnStart(t -> t.neverComplete());
        answer.set(List.of("a", "b"));
        try (CodexPool pool = pool(drainTimeout)) {
            PooledThread onA = pool.startThread();
            assertThat(onA.memberName()).isEqualTo("a");
            CodexTurn stuck = onA.startTurnAsync("forever").get(WAIT.toSeconds(), TimeUnit.SECONDS);
            answer.set(List.of("b"));
            clock.advance(EVERY);
            assertThat(names(pool)).containsExactly("a:DRAINING", "b:READY");

            // Just before the timeout the member still drains, its client open and its turn running.
            clock.advance(drainTimeout.minusSeconds(1));
            assertThat(names(pool)).containsExactly("a:DRAINING", "b:READY");
            assertThat(clients.get("a").get(0).isClosed()).isFalse();
            assertThat(stuck.result()).isNotDone();

            // At the timeout it is closed anyway: it leaves, and its turn fails typed instead of hanging.
            clock.advance(Duration.ofSeconds(1));
            awaitCondition("the member left", () -> names(pool).equals(List.of("b:READY")));
            assertThat(clients.get("a").get(0).isClosed()).isTrue();
            assertThat(failureOf(stuck.result(), WAIT)).isInstanceOf(CodexException.class);
        }
    }

    @Test
    void aMemberRetiredAgainDrainsForAWholeTimeoutFromItsSecondRetirement() throws Exception {
        Duration drainTimeout = Duration.ofMinutes(2);
        fake("a").onTurnStart(t -> t.neverComplete());
        answer.set(List.of("a"));
        try (CodexPool pool = pool(drainTimeout)) {
            PooledThread thread = pool.startThread();
            CodexTurn running = thread.startTurnAsync("long").get(WAIT.toSeconds(), TimeUnit.SECONDS);

            // Retired at t=30 s, named again at t=60 s, retired again at t=90 s.
            answer.set(List.of());
            clock.advance(EVERY);
            answer.set(List.of("a"));
            clock.advance(EVERY);
            assertThat(names(pool)).containsExactly("a:READY");
            answer.set(List.of());
            clock.advance(EVERY);
            assertThat(names(pool)).containsExactly("a:DRAINING");
            assertThat(events).containsExactly("added a fake:a", "removed a threads=1 turns=1", "added a fake:a",
                    "removed a threads=1 turns=1");

            // The first retirement's deadline (t=150 s) passes: the second drain goes on.
            clock.advance(drainTimeout.minus(EVERY.multipliedBy(2)));
            assertThat(names(pool)).containsExactly("a:DRAINING");
            assertThat(clients.get("a").get(0).isClosed()).isFalse();

            // The second one's (t=210 s) closes it.
            clock.advance(EVERY.multipliedBy(2));
            awaitCondition("the member left", () -> pool.stats().isEmpty());
            assertThat(clients.get("a")).hasSize(1);
            assertThat(clients.get("a").get(0).isClosed()).isTrue();
            assertThat(failureOf(running.result(), WAIT)).isInstanceOf(CodexException.class);
        }
    }

    @Test
    void withSharedStorageTheThreadsOfARemovedMemberGoOnElsewhereOnceNothingOfThemRunsThere() throws Exception {
        fake("a").onTurnStart(t -> t.pause(Duration.ofSeconds(30)).interrupted());
        answer.set(List.of("a", "b"));
        try (CodexPool pool = pool(Duration.ofMinutes(10), true)) {
            PooledThread idle = pool.startThread();
            pool.startThread(); // on b
            PooledThread busy = pool.startThread();
            assertThat(List.of(idle.memberName(), busy.memberName())).containsExactly("a", "a");
            CodexTurn running = busy.startTurnAsync("long").get(WAIT.toSeconds(), TimeUnit.SECONDS);

            answer.set(List.of("b"));
            clock.advance(EVERY);
            assertThat(names(pool)).containsExactly("a:DRAINING", "b:READY");

            // Nothing of idle runs on a: its next turn resumes it on b, under its id.
            assertThat(idle.startTurn("go on").await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(idle.memberName()).isEqualTo("b");
            assertThat(fake("b").takeRequest("thread/resume", WAIT).params().path("threadId").asText())
                    .isEqualTo(idle.id());

            // busy's turn still runs on a: it stays there, and its next turn is refused while a drains.
            assertThat(failureOf(busy.startTurnAsync("more"), WAIT)).isInstanceOf(CodexPoolRejectedException.class)
                    .hasMessageContaining("drains");
            assertThat(busy.memberName()).isEqualTo("a");
            running.interruptAsync();
            running.await(WAIT);
            awaitCondition("a left", () -> names(pool).equals(List.of("b:READY")));
            assertThat(busy.startTurn("after").await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(busy.memberName()).isEqualTo("b");
            assertThat(pool.stats().get(0).threads()).isEqualTo(3);
            assertThat(events).contains("moved " + idle.id() + " a->b", "moved " + busy.id() + " a->b");
        }
    }
}
