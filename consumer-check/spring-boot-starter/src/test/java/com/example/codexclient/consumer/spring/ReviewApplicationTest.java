package com.example.codexclient.consumer.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.transport.Transport;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/** The application with the testkit's fake in place of codex: a Transport bean is all the starter needs. */
@SpringBootTest
class ReviewApplicationTest {
    @TestConfiguration
    static class FakeCodex {
        @Bean(destroyMethod = "close")
        FakeCodexAppServer fakeCodexAppServer() {
            return new FakeCodexAppServer();
        }

        @Bean
        Transport codexTransport(FakeCodexAppServer fake) {
            return fake.connectInMemory();
        }
    }

    @Autowired
    private Reviewer reviewer;
    @Autowired
    private FakeCodexAppServer fake;
    @Autowired
    private CodexClient codex;

    @Test
    void theServiceGetsTheStartersClient() throws Exception {
        fake.onTurnStart(t -> t.agentMessage("Looks good.").completed());

        assertThat(reviewer.review("+ int x = 1;")).isEqualTo("Looks good.");
        assertThat(fake.takeRequest("initialize", Duration.ofSeconds(5)).params().path("clientInfo").path("name")
                .asText()).isEqualTo("review-app");
        boolean named = Boolean.getBoolean("consumer.namedModule");
        assertThat(Reviewer.class.getModule().isNamed()).as("the application's module").isEqualTo(named);
        assertThat(CodexClient.class.getModule().isNamed()).as("codex-client-core's module").isEqualTo(named);
    }
}
