package dev.codexclient.examples.spring;

import dev.codexclient.testkit.CodexBinary;
import dev.codexclient.testkit.IsolatedHome;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.testkit.ScriptedModelServer;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.http.MediaType;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * The service on the real codex, offline: the README's recipe for a Spring test on the testkit's scripted model,
 * as written there (properties only; the service's own configuration otherwise).
 */
@Tag("real-codex")
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
// The context (and with it the client and its codex) closes after each test, before @AfterAll deletes the model's
// CODEX_HOME: closed after the class, codex could still write into the home as it was being deleted.
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_EACH_TEST_METHOD)
class RealCodexServiceTest {
    static final ScriptedModelServer MODEL = ScriptedModelServer.start();

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
    }

    @AfterAll
    static void stopModel() {
        MODEL.close();
    }

    @Autowired
    private WebTestClient http;

    @Test
    void askAnswersFromTheRealCodexAndHealthShowsItsVersion() {
        MODEL.enqueue(ModelStep.reply("Hello from the real codex — ¡hola!"));
        http.post().uri("/ask").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("prompt", "Say hello")).exchange()
                .expectStatus().isOk()
                .expectBody()
                .jsonPath("$.status").isEqualTo("completed")
                .jsonPath("$.text").isEqualTo("Hello from the real codex — ¡hola!");
        http.get().uri("/actuator/health").exchange().expectStatus().isOk()
                .expectBody()
                .jsonPath("$.components.codex.status").isEqualTo("UP")
                .jsonPath("$.components.codex.details.codexVersion").isEqualTo(CodexBinary.PINNED_VERSION);
    }
}
