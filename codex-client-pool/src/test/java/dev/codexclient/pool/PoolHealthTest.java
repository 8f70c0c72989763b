package dev.codexclient.pool;

import static dev.codexclient.pool.PoolTestSupport.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.codexclient.CodexClient;
import dev.codexclient.errors.CodexPoolRejectedException;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.telemetry.PoolMemberEjected;
import dev.codexclient.telemetry.PoolMemberReadmitted;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Health on the pool's timer, on a manual clock: a member whose {@code /readyz} fails gets no new threads, is
 * ejected after N failures in a row, checked again only after its backoff (doubling while it keeps failing), and
 * readmitted when it passes; each step is an event.
 */
@Timeout(60)
class PoolHealthTest {
    private static final Duration EVERY = Duration.ofSeconds(1);

    private final ManualTimer clock = new ManualTimer();
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final AtomicInteger status = new AtomicInteger(200);
    private final AtomicInteger readyzAsked = new AtomicInteger();
    private HttpServer readyz;
    private FakeCodexAppServer fakeA;
    private FakeCodexAppServer fakeB;

    @BeforeEach
    void start() throws Exception {
        readyz = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        readyz.createContext("/readyz", exchange -> {
            readyzAsked.incrementAndGet();
            exchange.sendResponseHeaders(status.get(), -1);
            exchange.close();
        });
        readyz.start();
        fakeA = new FakeCodexAppServer();
        fakeB = new FakeCodexAppServer();
    }

    @AfterEach
    void stop() {
        readyz.stop(0);
        fakeA.close();
        fakeB.close();
    }

    private final CodexTelemetryListener listener = new CodexTelemetryListener() {
        @Override
        public void poolMemberEjected(PoolMemberEjected e) {
            events.add("ejected " + e.member() + " after " + e.consecutiveFailures() + ", back in " + e.backoff()
                    + ": " + e.reason());
        }

        @Override
        public void poolMemberReadmitted(PoolMemberReadmitted e) {
            events.add("readmitted " + e.member() + " after " + e.ejectedFor());
        }
    };

    private static CodexClient client(FakeCodexAppServer fake) {
        return CodexClient.builder().transportFactory(fake::connectInMemory)
                .requestTimeout(Duration.ofSeconds(10)).initializeTimeout(Duration.ofSeconds(10)).build();
    }

    private MemberState state(CodexPool pool, String member) {
        return pool.stats().stream().filter(s -> s.name().equals(member)).findFirst().orElseThrow().state();
    }

    @Test
    void aMemberFailingReadyzIsEjectedCheckedWithBackoffAndReadmitted() {
        // "a" is checked on the test's /readyz; "b" has no address and answers the cheap call.
        URI aUri = URI.create("ws://127.0.0.1:" + readyz.getAddress().getPort());
        MemberResolver resolver = () -> List.of(new PoolEndpoint("a", aUri));
        try (CodexPool pool = PoolProbe.useTimer(CodexPool.builder(), clock)
                .resolver(resolver, e -> client(fakeA)).member("b", () -> client(fakeB))
                .healthCheckEvery(EVERY, Duration.ofSeconds(5)).ejectAfter(2)
                .readmitBackoff(Duration.ofSeconds(2), Duration.ofSeconds(5)).telemetryListener(listener).build()) {
            clock.advance(EVERY);
            assertThat(readyzAsked).hasValue(1);
            assertThat(state(pool, "a")).isEqualTo(MemberState.READY);

            status.set(503);
            clock.advance(EVERY);
            // One failure: not ready (no new threads), not yet ejected.
            assertThat(state(pool, "a")).isEqualTo(MemberState.NOT_READY);
            assertThat(events).isEmpty();
            assertThat(pool.startThread().memberName()).isEqualTo("b");
            clock.advance(EVERY);
            assertThat(state(pool, "a")).isEqualTo(MemberState.EJECTED);
            assertThat(events).containsExactly("ejected a after 2, back in PT2S: its /readyz did not answer 200");
            assertThat(readyzAsked).hasValue(3);

            // In its backoff it is not asked; then asked, fails, and the backoff doubles: 2 s, 4 s, then 5 s (its
            // bound).
            clock.advance(EVERY);                                   // t=4
            assertThat(readyzAsked).hasValue(3);
            clock.advance(EVERY);                                   // t=5: asked, fails, back in 4 s
            assertThat(readyzAsked).hasValue(4);
            clock.advance(EVERY.multipliedBy(3));                   // t=8
            assertThat(readyzAsked).hasValue(4);
            clock.advance(EVERY);                                   // t=9: asked, fails, back in 5 s
            assertThat(readyzAsked).hasValue(5);
            status.set(200);
            clock.advance(EVERY.multipliedBy(4));                   // t=13
            assertThat(readyzAsked).hasValue(5);
            assertThat(state(pool, "a")).isEqualTo(MemberState.EJECTED);
            clock.advance(EVERY);                                   // t=14: asked, passes
            assertThat(readyzAsked).hasValue(6);
            assertThat(state(pool, "a")).isEqualTo(MemberState.READY);
            assertThat(events).last().isEqualTo("readmitted a after PT11S");
            // b has a thread; a has none: the next goes to a.
            assertThat(pool.startThread().memberName()).isEqualTo("a");
            assertThat(fakeB.requests().stream().filter(r -> r.method().equals("thread/loaded/list")).count())
                    .as("b was checked by a cheap call at each tick").isEqualTo(14);
        }
    }

    @Test
    void aMemberWhoseClientCannotBeReplacedIsEjectedAndNoThreadGoesThere() throws Exception {
        AtomicInteger built = new AtomicInteger();
        try (CodexPool pool = PoolProbe.useTimer(CodexPool.builder(), clock)
                .member("only", () -> {
                    if (built.incrementAndGet() > 1) {
                        throw new IllegalStateException("the server is gone for good");
                    }
                    return client(fakeA);
                })
                .healthCheckEvery(EVERY, Duration.ofSeconds(5)).ejectAfter(1)
                .readmitBackoff(Duration.ofSeconds(1), Duration.ofSeconds(1)).telemetryListener(listener).build()) {
            pool.memberClient("only").orElseThrow().close();
            clock.advance(EVERY);
            assertThat(state(pool, "only")).isEqualTo(MemberState.EJECTED);
            assertThat(events).singleElement().asString()
                    .contains("its client could not be replaced: the server is gone for good");
            assertThatThrownBy(pool::startThread).isInstanceOf(CodexPoolRejectedException.class)
                    .hasMessageContaining("no member of the pool is healthy");
        }
    }

    @Test
    void aServerThatDoesNotAnswerTheCheapCallFailsItsCheck() throws Exception {
        fakeA.on("thread/loaded/list").always().noReply();
        try (CodexPool pool = PoolProbe.useTimer(CodexPool.builder(), clock).member("a", () -> client(fakeA))
                .member("b", () -> client(fakeB))
                .healthCheckEvery(EVERY, Duration.ofMillis(100)).ejectAfter(1).telemetryListener(listener).build()) {
            clock.advance(EVERY);
            assertThat(state(pool, "a")).isEqualTo(MemberState.EJECTED);
            assertThat(state(pool, "b")).isEqualTo(MemberState.READY);
            assertThat(events).singleElement().asString()
                    .contains("its server did not answer thread/loaded/list within PT0.1S");
            assertThat(pool.startThread().startTurn("hi").await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
        }
    }
}
