package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.inMemory;
import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.IntegrationTelemetry;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.telemetry.ConnectionClosed;
import dev.codexclient.telemetry.ConnectionOpened;
import dev.codexclient.telemetry.ExtensionTelemetry;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
        IntegrationTelemetry.publish(client, new Marked("one"));
        IntegrationTelemetry.publish(client, new Marked("two"));
        client.close();
        assertThat(closed.await(10, TimeUnit.SECONDS)).isTrue();
        IntegrationTelemetry.publish(client, new Marked("after close"));
        assertThat(seen).startsWith("opened", "test:one", "test:two").contains("closed", "test:after close");
        assertThat(second).containsExactly("one", "two", "after close");
    }

    @Test
    void aClientWithoutAListenerIgnoresThem() {
        try (CodexClient client = inMemory(fake).build()) {
            IntegrationTelemetry.publish(client, new Marked("nobody"));
        }
    }
}
