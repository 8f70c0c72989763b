package dev.codexclient.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.transport.Transport;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.Disposable;

/**
 * Closing the context while a stream's turn runs on: the web server's graceful shutdown waits for the request in
 * flight, and the client is closed during it (after {@code codex.shutdown-grace-period}), not after it, so the stream
 * ends with its error event instead of holding the shutdown until its 30 s timeout and being cut.
 */
@Timeout(120)
class GracefulShutdownTest {

    /** The fake in place of the spawned codex. */
    @Configuration
    static class FakeCodex {
        static final FakeCodexAppServer FAKE = new FakeCodexAppServer();

        @Bean
        Transport codexTransport() {
            return FAKE.connectInMemory();
        }
    }

    @Test
    void aRunningStreamEndsWithItsErrorEventWhenTheServiceShutsDown() throws Exception {
        FakeCodex.FAKE.onTurnStart(t -> t.agentMessageDeltas("still ", "thinking").neverComplete());
        ConfigurableApplicationContext context = new SpringApplicationBuilder(CodexServiceApplication.class,
                FakeCodex.class).properties("server.port=0", "codex.shutdown-grace-period=0s").run();
        List<ServerSentEvent<String>> events = new CopyOnWriteArrayList<>();
        CountDownLatch firstDelta = new CountDownLatch(1);
        CountDownLatch ended = new CountDownLatch(1);
        Disposable stream;
        try {
            int port = context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
            stream = WebClient.create("http://127.0.0.1:" + port).get().uri("/stream?prompt=go").retrieve()
                    .bodyToFlux(new ParameterizedTypeReference<ServerSentEvent<String>>() { })
                    .doOnNext(e -> {
                        events.add(e);
                        firstDelta.countDown();
                    })
                    .doFinally(signal -> ended.countDown())
                    .subscribe(e -> { }, e -> { });
            assertThat(firstDelta.await(30, TimeUnit.SECONDS)).as("the stream started").isTrue();
        } finally {
            context.close();
            FakeCodex.FAKE.close();
        }
        assertThat(ended.await(30, TimeUnit.SECONDS)).as("the stream ended").isTrue();
        stream.dispose();
        ServerSentEvent<String> last = events.get(events.size() - 1);
        assertThat(last.event()).as("the stream's last event, of " + events).isEqualTo("error");
        assertThat(last.data()).contains("closed");
    }
}
