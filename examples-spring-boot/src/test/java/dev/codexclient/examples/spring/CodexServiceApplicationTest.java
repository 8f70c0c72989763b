package dev.codexclient.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.transport.Transport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * The service on the testkit's fake app-server, over HTTP: the test's {@link Transport} bean replaces the codex that
 * {@code application.properties} would spawn (and its restart policy), as a test's bean replaces production wiring
 * anywhere in Spring.
 *
 * <p>The web server stops at once, and the context closes with the class. The graceful shutdown is
 * {@link GracefulShutdownTest}'s subject; here it could only wait: when the test's client sends its next request on a
 * kept-alive connection before the server's write of the previous response has completed, Reactor Netty can count
 * that connection as busy for good, and the graceful shutdown then waits out its whole 30 s phase. Left to the test
 * context cache, this context would close in the JVM's shutdown hook, where those 30 s are surefire's 30 s exit
 * timeout: the fork was killed ("Surefire is going to kill self fork JVM") in about one run of five.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "server.shutdown=immediate")
@DirtiesContext
class CodexServiceApplicationTest {
    /** The fake in place of the spawned codex; closed with the context, after the client that uses it. */
    @TestConfiguration
    static class FakeCodex {
        @Bean(destroyMethod = "close")
        FakeCodexAppServer fakeCodex() {
            return new FakeCodexAppServer();
        }

        @Bean
        Transport codexTransport(FakeCodexAppServer fake) {
            return fake.connectInMemory();
        }
    }

    /** A client of the running server, built here: Spring Boot 4 no longer injects one into a test by itself. */
    private WebTestClient http;

    @BeforeEach
    void connect(@Value("${local.server.port}") int port) {
        http = WebTestClient.bindToServer().baseUrl("http://127.0.0.1:" + port).build();
    }

    @Autowired
    private FakeCodexAppServer fake;

    @Test
    void askAnswersWithTheTurnsText() {
        fake.onTurnStart(t -> t.agentMessage("Hello from codex — ¡hola!").completed());
        http.post().uri("/ask").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("prompt", "Say hello")).exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.status").isEqualTo("completed")
                .jsonPath("$.text").isEqualTo("Hello from codex — ¡hola!");
    }

    @Test
    void streamSendsTheDeltasAsServerSentEventsThenDone() {
        fake.onTurnStart(t -> t.agentMessageDeltas("Hel", "lo, ", "stream").completed());
        List<ServerSentEvent<String>> events = http.get().uri("/stream?prompt=hi").accept(MediaType.TEXT_EVENT_STREAM)
                .exchange().expectStatus().isOk()
                .returnResult(new ParameterizedTypeReference<ServerSentEvent<String>>() { })
                .getResponseBody().collectList().block(Duration.ofSeconds(30));
        assertThat(events).isNotNull();
        StringBuilder text = new StringBuilder();
        events.stream().filter(e -> "delta".equals(e.event())).forEach(e -> text.append(e.data()));
        assertThat(text).hasToString("Hello, stream");
        assertThat(events.get(events.size() - 1).event()).isEqualTo("done");
        assertThat(events.get(events.size() - 1).data()).isEqualTo("completed");
    }

    @Test
    void aFailedTurnEndsTheStreamWithAnErrorEventTheClientCanShow() {
        fake.onTurnStart(t -> t.agentMessageDeltas("Part").failed("the model is unavailable"));
        List<ServerSentEvent<String>> events = http.get().uri("/stream?prompt=hi").accept(MediaType.TEXT_EVENT_STREAM)
                .exchange().expectStatus().isOk()
                .returnResult(new ParameterizedTypeReference<ServerSentEvent<String>>() { })
                .getResponseBody().collectList().block(Duration.ofSeconds(30));
        assertThat(events).isNotNull();
        ServerSentEvent<String> last = events.get(events.size() - 1);
        assertThat(last.event()).isEqualTo("error");
        assertThat(last.data()).contains("the model is unavailable");
    }

    @Test
    void healthIsUpWithTheServersVersionAndCostsTheServerNothing() {
        long before = livenessRequests();
        http.get().uri("/actuator/health").exchange().expectStatus().isOk()
                .expectBody()
                .jsonPath("$.status").isEqualTo("UP")
                .jsonPath("$.components.codex.status").isEqualTo("UP")
                .jsonPath("$.components.codex.details.sdkCodexVersion").exists();
        assertThat(livenessRequests()).as("the check sent nothing").isEqualTo(before);
    }

    private long livenessRequests() {
        return fake.requests().stream().filter(r -> r.method().equals("thread/loaded/list")).count();
    }

    @Test
    void metricsFollowTheGenAiConventions() {
        fake.onTurnStart(t -> t.agentMessage("counted").completed());
        http.post().uri("/ask").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("prompt", "count me")).exchange().expectStatus().isOk();
        // The listener stops the turn's observation on the client's callback thread, just after the answer.
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (http.get().uri("/actuator/metrics/gen_ai.client.operation.duration").exchange()
                .returnResult(String.class).getStatus().isError()) {
            assertThat(System.nanoTime()).as("the turn's timer within 10 s").isLessThan(deadline);
        }
        http.get().uri("/actuator/metrics/gen_ai.client.operation.duration").exchange().expectStatus().isOk()
                .expectBody()
                .jsonPath("$.availableTags[?(@.tag == 'gen_ai.operation.name')].values[0]").isEqualTo("invoke_agent");
        http.get().uri("/actuator/metrics/codex.client.requests").exchange().expectStatus().isOk();
    }
}
