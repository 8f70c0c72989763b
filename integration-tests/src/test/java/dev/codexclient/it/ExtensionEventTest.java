package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.inMemory;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.CodexClient;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.telemetry.ConnectionClosed;
import dev.codexclient.telemetry.ConnectionOpened;
import dev.codexclient.telemetry.ExtensionTelemetry;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.testkit.RecordedRequest;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An integration's telemetry reaches the client's one listener through {@link dev.codexclient.IntegrationTelemetry#publish}, in order with
 * the client's own events, through a composite listener too, and a client without a listener takes them quietly.
 */
@Timeout(30)
class ExtensionEventTest {
    private final FakeCodexAppServer fake = new FakeCodexAppServer();

    @AfterEach
    void closeFake() {
        fake.close();
    }

    record Marked(String name) implements ExtensionTelemetry {
        @Override
        public String source() {
            return "test";
        }
    }

    @Test
    void publishedEventsReachTheListenerInOrderWithTheClientsOwn() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        CountDownLatch closed = new CountDownLatch(1);
        CodexTelemetryListener recorder = new CodexTelemetryListener() {
            @Override
            public void connectionOpened(ConnectionOpened event) {
                seen.add("opened");
            }

            @Override
            public void connectionClosed(ConnectionClosed event) {
                seen.add("closed");
                closed.countDown();
            }

            @Override
            public void extensionTelemetry(ExtensionTelemetry event) {
                seen.add(event.source() + ":" + ((Marked) event).name());
            }
        };
        List<String> second = new CopyOnWriteArrayList<>();
        CodexTelemetryListener other = new CodexTelemetryListener() {
            @Override
            public void extensionTelemetry(ExtensionTelemetry event) {
                second.add(((Marked) event).name());
            }
        };
        CodexClient client = inMemory(fake).telemetryListener(CodexTelemetryListener.composite(recorder, other)).build();
        client.publishTelemetry(new Marked("one"));
        publishByTheFormerName(client, new Marked("two"));
        client.close();
        assertThat(closed.await(10, TimeUnit.SECONDS)).isTrue();
        client.publishTelemetry(new Marked("after close"));
        assertThat(seen).startsWith("opened", "test:one", "test:two").contains("closed", "test:after close");
        assertThat(second).containsExactly("one", "two", "after close");
    }

    @SuppressWarnings("removal")
    private static void publishByTheFormerName(CodexClient client, ExtensionTelemetry telemetry) {
        dev.codexclient.IntegrationTelemetry.publish(client, telemetry);
    }

    @Test
    void aClientWithoutAListenerTakesThemQuietlyWithoutLookingAtThem() throws Exception {
        // A record that counts every look: a client without a listener must not even read it (nor log it).
        AtomicInteger looks = new AtomicInteger();
        ExtensionTelemetry watched = new ExtensionTelemetry() {
            @Override
            public String source() {
                looks.incrementAndGet();
                return "watched";
            }

            @Override
            public String toString() {
                looks.incrementAndGet();
                return "watched";
            }
        };
        // The client's callbacks run on an executor that counts what it is given.
        AtomicInteger callbackTasks = new AtomicInteger();
        ExecutorService callbacks = new ThreadPoolExecutor(1, 4, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>()) {
            @Override
            public void execute(Runnable task) {
                callbackTasks.incrementAndGet();
                super.execute(task);
            }
        };
        AtomicReference<CodexClient> holder = new AtomicReference<>();
        CompletableFuture<Void> publishedFromAListener = new CompletableFuture<>();
        CodexClient client = inMemory(fake).callbackExecutor(callbacks).onNotification(n -> {
            if (n.method().equals("warning")) {
                holder.get().publishTelemetry(watched);
                publishedFromAListener.complete(null);
            }
        }).build();
        holder.set(client);

        // Nothing is queued for nobody: the records give the client's threads no work at all.
        int before = callbackTasks.get();
        for (int i = 0; i < 1_000; i++) {
            client.publishTelemetry(watched);
        }
        assertThat(callbackTasks).as("callback tasks for 1,000 records and no listener").hasValue(before);
        // From the client's own delivery thread, as an integration's callback would: it returns there too.
        fake.notify("warning", Map.of("message", "publish from here"));
        publishedFromAListener.get(10, TimeUnit.SECONDS);
        assertThatThrownBy(() -> client.publishTelemetry(null)).isInstanceOf(NullPointerException.class);
        client.close();
        client.publishTelemetry(watched);

        assertThat(looks).as("looks at the record").hasValue(0);
        // The records are the client's own business: nothing of them reached the server.
        assertThat(fake.requests()).extracting(RecordedRequest::method).containsExactly("initialize");
        callbacks.shutdown();
    }
}
