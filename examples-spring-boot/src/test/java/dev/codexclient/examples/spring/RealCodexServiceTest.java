package dev.codexclient.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.CodexClient;
import dev.codexclient.testkit.CodexBinary;
import dev.codexclient.testkit.IsolatedHome;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.testkit.ScriptedModelServer;
import java.time.Duration;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.http.MediaType;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * The service on the real codex, offline, on the Spring Boot line the build chose (4.0, or 3.5 with the profile
 * {@code spring-boot-3}): the README's recipe for a Spring test on the testkit's scripted model, as written there
 * (properties only; the service's own configuration otherwise). Over HTTP, as an operator sees the service: health
 * UP with the {@code codex} component, the GenAI meters in {@code /actuator/metrics}, and health naming the cause
 * after codex is killed.
 */
@Tag("real-codex")
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
// The context (and with it the client and its codex) closes after each test, before @AfterAll deletes the model's
// CODEX_HOME: closed after the class, codex could still write into the home as it was being deleted.
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_EACH_TEST_METHOD)
class RealCodexServiceTest {
    static final ScriptedModelServer MODEL = ScriptedModelServer.start();
    private static final Duration WAIT = Duration.ofSeconds(30);

    @DynamicPropertySource
    static void codex(DynamicPropertyRegistry registry) {
        registry.add("codex.binary", () -> CodexBinary.pinned().toString());
        registry.add("codex.home", () -> MODEL.codexHome().toString());
        MODEL.environment().forEach((name, value) -> {
            if (!name.equals("CODEX_HOME")) {
                registry.add("codex.environment[" + name + "]", () -> value);   // HOME, TMPDIR, ...
            }
        });
        // None of this machine's credentials or configuration reach the test's codex.
        TreeSet<String> removed = new TreeSet<>(IsolatedHome.CLEARED_VARIABLES);
        removed.addAll(IsolatedHome.HOME_VARIABLES);
        registry.add("codex.remove-environment", () -> String.join(",", removed));
        // The service restarts a lost codex (application.properties); the first attempt waits an hour here, so that
        // health is seen while the restart is under way, whatever the machine's pace.
        registry.add("codex.restart.initial-backoff", () -> "1h");
        registry.add("codex.restart.max-backoff", () -> "1h");
    }

    @AfterAll
    static void stopModel() {
        MODEL.close();
    }

    @Autowired
    private CodexClient codex;

    private WebTestClient http;

    @BeforeEach
    void connect(@Value("${local.server.port}") int port) {
        http = WebTestClient.bindToServer().baseUrl("http://127.0.0.1:" + port).responseTimeout(WAIT).build();
    }

    @Test
    void askAnswersFromTheRealCodexAndHealthIsUpWithTheCodexComponent() {
        assertThat(SpringBootVersion.getVersion()).as("the line the build chose")
                .isEqualTo(System.getProperty("spring-boot.version"));
        MODEL.enqueue(ModelStep.reply("Hello from the real codex — ¡hola!"));
        http.post().uri("/ask").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("prompt", "Say hello")).exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.status").isEqualTo("completed")
                .jsonPath("$.text").isEqualTo("Hello from the real codex — ¡hola!");
        http.get().uri("/actuator/health").exchange().expectStatus().isOk()
                .expectBody()
                .jsonPath("$.status").isEqualTo("UP")
                .jsonPath("$.components.codex.status").isEqualTo("UP")
                .jsonPath("$.components.codex.details.codexVersion").isEqualTo(CodexBinary.PINNED_VERSION);
    }

    @Test
    void theGenAiMetersAreInTheMetricsEndpointAfterATurn() {
        MODEL.enqueue(ModelStep.reply("Counted."));
        http.post().uri("/ask").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("prompt", "Count me")).exchange().expectStatus().isOk();
        // The turn's observation stops on the client's callback thread, just after the answer.
        JsonNode names = awaitJson("/actuator/metrics",
                metrics -> metrics.path("names").toString().contains("gen_ai.client.operation.duration"));
        assertThat(names.path("names")).extracting(JsonNode::asText)
                .contains("gen_ai.client.operation.duration", "gen_ai.client.token.usage", "codex.client.requests");
        JsonNode duration = json("/actuator/metrics/gen_ai.client.operation.duration");
        assertThat(duration.path("availableTags").findValuesAsText("tag"))
                .contains("gen_ai.operation.name", "gen_ai.provider.name");
        JsonNode tokens = json("/actuator/metrics/gen_ai.client.token.usage");
        assertThat(tokens.path("availableTags").findValuesAsText("tag")).contains("gen_ai.token.type");
    }

    @Test
    void healthNamesTheCauseAfterCodexIsKilled() {
        http.get().uri("/actuator/health").exchange().expectStatus().isOk();
        ProcessHandle server = codex.serverProcess().orElseThrow();
        server.descendants().forEach(ProcessHandle::destroyForcibly);
        server.destroyForcibly();

        // DOWN makes the endpoint answer 503, with the same body.
        JsonNode health = awaitJson("/actuator/health",
                h -> "DOWN".equals(h.path("components").path("codex").path("status").asText()));
        JsonNode details = health.path("components").path("codex").path("details");
        assertThat(health.path("status").asText()).isEqualTo("DOWN");
        assertThat(details.path("exitCode").asInt()).as("SIGKILL: %s", details).isEqualTo(137);
        assertThat(details.path("error").asText()).contains("CodexTransportException");
        assertThat(details.path("restarting").asBoolean()).as("the restart policy is on it").isTrue();
        assertThat(details.path("reason").asText()).contains("restarting it (codex.restart)");
    }

    private JsonNode json(String path) {
        byte[] body = http.get().uri(path).exchange().expectBody().returnResult().getResponseBody();
        try {
            return new ObjectMapper().readTree(body);
        } catch (java.io.IOException e) {
            throw new AssertionError(path + " did not answer JSON", e);
        }
    }

    /** Asks {@code path} until its JSON satisfies {@code done}, bounded: what it shows follows another thread. */
    private JsonNode awaitJson(String path, Predicate<JsonNode> done) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        JsonNode last = json(path);
        while (!done.test(last)) {
            assertThat(System.nanoTime()).as("%s within %s; last: %s", path, WAIT, last).isLessThan(deadline);
            last = json(path);
        }
        return last;
    }
}
