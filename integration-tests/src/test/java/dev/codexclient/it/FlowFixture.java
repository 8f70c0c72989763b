package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.WAIT;
import static dev.codexclient.it.ClientTestSupport.inMemory;

import dev.codexclient.CodexClientBuilder;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexTurn;
import dev.codexclient.Subscription;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.testkit.Fault;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Publishers of exactly {@code n} events, on the fake app-server, for the Reactive Streams TCK and the Flow tests.
 * Everything it builds is closed by {@link #close()}.
 */
final class FlowFixture implements AutoCloseable {
    /** More events than any scripted turn of these tests plays: such a publisher streams and stays open. */
    static final long ENDLESS = 10_000;
    /** How many events an "endless" source sends before it waits for the end of the test. */
    private static final int ENDLESS_EVENTS = 1_000;

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final ExecutorService feeders = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "flow-fixture-feeder");
        t.setDaemon(true);
        return t;
    });
    /** The events of every turn of the fake besides those its script adds. */
    private static final int TURN_FRAME = 4;
    private final Map<Integer, CodexClient> replayLimited = new HashMap<>();
    private FakeCodexAppServer sharedFake;
    private CodexClient sharedClient;

    /** The client (and its fake) that runs the live turns. */
    synchronized CodexClient client() {
        if (sharedClient == null) {
            sharedFake = track(new FakeCodexAppServer());
            sharedClient = track(inMemory(sharedFake).build());
        }
        return sharedClient;
    }

    synchronized FakeCodexAppServer fake() {
        client();
        return sharedFake;
    }

    /** A client of its own, on a fake of its own, configured by {@code configure}. */
    synchronized CodexClient newClient(FakeCodexAppServer fake, Consumer<CodexClientBuilder> configure) {
        CodexClientBuilder b = inMemory(fake);
        configure.accept(b);
        return track(b.build());
    }

    synchronized <T extends AutoCloseable> T track(T resource) {
        resources.add(resource);
        return resource;
    }

    /**
     * A turn whose publisher gives exactly {@code n} events and then {@code onComplete}. The fake's turns have four
     * events of their own ({@code turn/started}, the user message's {@code item/started} and
     * {@code item/completed}, {@code turn/completed}); from four events on, it is a live turn with {@code n - 4}
     * diff updates between them, started just now, so a subscriber gets part of it replayed and the rest live.
     * Below four, a finished turn on a client whose replay buffer keeps {@code n} events (the turn's last ones).
     * From {@link #ENDLESS} on, a turn that streams a thousand events and stays open until the fixture is closed.
     */
    CodexTurn turnOf(long n) {
        if (n < TURN_FRAME) {
            CodexClient client = replayLimited((int) n);
            CodexTurn turn = client.startThread().startTurn("go");
            turn.await(WAIT);
            return turn;
        }
        boolean endless = n >= ENDLESS;
        int middle = endless ? ENDLESS_EVENTS : (int) n - TURN_FRAME;
        fake().enqueueTurn(t -> {
            for (int i = 0; i < middle; i++) {
                t.diffUpdate("diff " + i);
            }
            if (endless) {
                t.neverComplete();
            } else {
                t.completed();
            }
        });
        return client().startThread().startTurn("go");
    }

    /** A client (on a fake of its own, whose turns have one diff update) that replays at most {@code n} events. */
    private synchronized CodexClient replayLimited(int n) {
        CodexClient client = replayLimited.get(n);
        if (client == null) {
            FakeCodexAppServer fake = track(new FakeCodexAppServer());
            fake.onTurnStart(t -> t.diffUpdate("d").completed());
            client = newClient(fake, b -> b.turnReplayLimit(n));
            replayLimited.put(n, client);
        }
        return client;
    }

    /** The publisher of a turn that failed ({@code turn/completed} with status failed) and replays nothing. */
    Flow.Publisher<ServerNotification> failedTurnPublisher() {
        FakeCodexAppServer fake = track(new FakeCodexAppServer());
        CodexClient client = newClient(fake, b -> b.turnReplayLimit(0));
        fake.onTurnStart(t -> t.failed("the model is unavailable", "serverOverloaded"));
        CodexTurn turn = client.startThread().startTurn("go");
        turn.result().handle((r, e) -> null).join();
        return turn.publisher();
    }

    /**
     * The client's notifications as a publisher of exactly {@code n} events: each subscription triggers the fake to
     * send {@code n} notifications, and once the client has received them it is closed, which completes the
     * stream. From {@link #ENDLESS} on, the fake sends a thousand and the client stays open. Only the first
     * subscription triggers the feed (the stream is hot: a later subscriber sees what arrives after it subscribed).
     */
    Flow.Publisher<ServerNotification> notificationsOf(long n) {
        FakeCodexAppServer fake = track(new FakeCodexAppServer());
        CodexClient client = newClient(fake, b -> { });
        Flow.Publisher<ServerNotification> publisher = client.publisher();
        boolean endless = n >= ENDLESS;
        int count = endless ? ENDLESS_EVENTS : (int) n;
        AtomicBoolean fed = new AtomicBoolean();
        return subscriber -> {
            publisher.subscribe(subscriber);
            if (fed.compareAndSet(false, true)) {
                CountDownLatch received = new CountDownLatch(count);
                // After the subscription: a listener added later sees each event after the subscription's does.
                Subscription counter = client.onNotification(e -> received.countDown());
                feeders.execute(() -> {
                    for (int i = 0; i < count; i++) {
                        fake.notify("test/tick", Map.of("seq", i));
                    }
                    try {
                        if (!endless && received.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                            counter.close();
                            client.close();
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
            }
        };
    }

    /** The notifications publisher of a client whose connection failed (the server exited). */
    Flow.Publisher<ServerNotification> failedNotificationsPublisher() {
        FakeCodexAppServer fake = track(new FakeCodexAppServer());
        CodexClient client = newClient(fake, b -> { });
        fake.apply(Fault.exit(3));
        ClientTestSupport.awaitCondition("the client sees the server's exit", client::isClosed);
        return client.publisher();
    }

    @Override
    public synchronized void close() throws Exception {
        feeders.shutdownNow();
        Exception first = null;
        // Clients before their fakes: each was tracked after its fake.
        for (int i = resources.size() - 1; i >= 0; i--) {
            try {
                resources.get(i).close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        resources.clear();
        replayLimited.clear();
        sharedClient = null;
        sharedFake = null;
        if (first != null) {
            throw first;
        }
    }
}
