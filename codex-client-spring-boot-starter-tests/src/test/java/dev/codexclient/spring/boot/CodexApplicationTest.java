package dev.codexclient.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.ApprovalRequest;
import dev.codexclient.CodexClient;
import dev.codexclient.TurnResult;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.protocol.CommandExecutionStatus;
import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.transport.Transport;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.test.annotation.DirtiesContext;

/**
 * An application as a Spring user writes it: auto-configuration on, an approval policy bean, the client injected.
 * It runs a turn with two approvals against the fake app-server; closing the context closes the client.
 */
@SpringBootTest(classes = CodexApplicationTest.Application.class,
        properties = {"codex.client-info.name=spring-app", "codex.request-timeout=10s", "codex.close-timeout=1s"})
// The context is closed after the test method, before the check below runs: closing it is what is tested.
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_EACH_TEST_METHOD)
class CodexApplicationTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    /** The client the test ran with, for the check after the context closed. */
    private static volatile CodexClient used;

    @RegisterExtension
    static final AfterAllCallback CLOSED_WITH_THE_CONTEXT = extension -> {
        assertThat(used).as("the test ran").isNotNull();
        assertThat(used.isClosed()).as("the client is closed with the context").isTrue();
        assertThat(used.startThreadAsync()).failsWithin(WAIT).withThrowableThat()
                .withCauseInstanceOf(CodexTransportException.class);
    };

    @Autowired
    private CodexClient codex;
    @Autowired
    private FakeCodexAppServer fake;
    @Autowired
    private ApplicationContext context;
    @Autowired
    private Reviewer reviewer;

    @Test
    void aTurnWithApprovalsRunsThroughTheInjectedClientAndTheContextClosesIt() {
        List<String> decisions = new CopyOnWriteArrayList<>();
        fake.enqueueTurn(turn -> turn
                .commandApproval("ls -la", reply -> decisions.add(reply.decision().orElse("none")))
                .commandApproval("rm -rf build", reply -> decisions.add(reply.decision().orElse("none")))
                .agentMessage("Listed the files; left the build alone.")
                .completed());

        TurnResult result = codex.startThread().startTurn("List the files").await(WAIT);

        assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
        assertThat(result.finalText()).isEqualTo("Listed the files; left the build alone.");
        assertThat(decisions).containsExactly("accept", "decline");
        assertThat(result.itemsOf(ThreadItem.CommandExecution.class)).extracting(ThreadItem.CommandExecution::status)
                .containsExactly(CommandExecutionStatus.COMPLETED, CommandExecutionStatus.DECLINED);
        assertThat(fake.clientInfo().orElseThrow().path("name").asText()).isEqualTo("spring-app");
        assertThat(ActuatorHealth.codex(context).status()).isEqualTo("UP");

        // The service of the README's "Spring Boot" section, as written there.
        fake.enqueueTurn(turn -> turn.agentMessage("Looks good.").completed());
        assertThat(reviewer.review("+ one line")).isEqualTo("Looks good.");
        assertThat(fake.requests()).filteredOn(request -> request.method().equals("turn/start"))
                .extracting(request -> request.params().path("input").get(0).path("text").asText())
                .containsExactly("List the files", "Review this diff:\n+ one line");

        fake.verifyNoFailures();
        used = codex;
    }

    /** README.md, "Spring Boot": a service of the application, given the client by constructor injection. */
    static class Reviewer {
        private final CodexClient codex;

        Reviewer(CodexClient codex) {
            this.codex = codex;
        }

        String review(String diff) {
            return codex.startThread().startTurn("Review this diff:\n" + diff).await(Duration.ofMinutes(5)).finalText();
        }
    }

    /** The application: its configuration names no CodexClient; the starter provides it. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Application {

        @Bean(destroyMethod = "close")
        FakeCodexAppServer fakeCodexAppServer() {
            return new FakeCodexAppServer();
        }

        @Bean
        Transport codexTransport(FakeCodexAppServer fake) {
            return fake.connectInMemory();
        }

        @Bean
        Reviewer reviewer(CodexClient codex) {
            return new Reviewer(codex);
        }

        @Bean
        ApprovalPolicy<ApprovalRequest> listingOnly() {
            return ApprovalPolicy.sync(request -> request instanceof ApprovalRequest.Command command
                    && command.params().command().equals("ls -la")
                    ? ApprovalDecision.ACCEPT : ApprovalDecision.DECLINE);
        }
    }
}
