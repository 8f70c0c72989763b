package dev.codexclient.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexVersion;
import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.testkit.Fault;
import dev.codexclient.transport.Transport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The Actuator health indicator of the Spring Boot line under test: when it is contributed, and what it reports. */
@ExtendWith(CodexTestExtension.class)
class CodexHealthTest {
    private static final String USER_AGENT = "acme-bot/0.169.0 (Debian 12.0.0; x86_64) xterm (acme-bot; 1.4.0)";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CodexAutoConfiguration.class,
                    CodexHealthContributorAutoConfiguration.class));

    private static ApplicationContextRunner connectedTo(ApplicationContextRunner runner, FakeCodexAppServer fake) {
        fake.initializeResult(Map.of("userAgent", USER_AGENT, "codexHome", "/home/bot/.codex",
                "platformFamily", "unix", "platformOs", "linux"));
        return runner.withBean(Transport.class, fake::connectInMemory);
    }

    @Test
    void upWithTheServersVersionWhileItAnswers(FakeCodexAppServer fake) {
        fake.on("thread/loaded/list").always().respond(Map.of("data", List.of()));
        connectedTo(runner, fake).withPropertyValues("codex.health.probe=true").run(context -> {
            ActuatorHealth.Report health = ActuatorHealth.codex(context);
            assertThat(context.getBean("codexHealthIndicator")).isInstanceOf(ActuatorHealth.CODEX_INDICATOR);
            assertThat(health.status()).isEqualTo("UP");
            assertThat(health.details())
                    .containsEntry("codexVersion", "0.169.0")
                    .containsEntry("userAgent", USER_AGENT)
                    .containsEntry("platform", "unix/linux")
                    .containsEntry("sdkCodexVersion", CodexVersion.pinned().text());
            assertThat(fake.takeRequest("thread/loaded/list", Duration.ofSeconds(5)).params().path("limit").asInt())
                    .isOne();
        });
    }

    @Test
    void anErrorReplyIsAnAnswer(FakeCodexAppServer fake) {
        // A server that does not know the method is still there and reading.
        fake.on("thread/loaded/list").always().respondError(-32601, "Method not found");
        connectedTo(runner, fake).withPropertyValues("codex.health.probe=true").run(context ->
                assertThat(ActuatorHealth.codex(context).status()).isEqualTo("UP"));
    }

    @Test
    void downWhenTheServerDoesNotAnswerInTime(FakeCodexAppServer fake) {
        fake.on("thread/loaded/list").always().noReply();
        connectedTo(runner, fake).withPropertyValues("codex.health.probe=true", "codex.health.timeout=50ms").run(context -> {
            ActuatorHealth.Report health = ActuatorHealth.codex(context);
            assertThat(health.status()).isEqualTo("DOWN");
            assertThat(health.details()).containsEntry("codexVersion", "0.169.0");
            assertThat(health.details().get("error").toString()).contains("CodexTimeoutException")
                    .contains("50 ms");
        });
    }

    @Test
    void upByDefaultWithoutSendingTheServerAnything(FakeCodexAppServer fake) {
        connectedTo(runner, fake).run(context -> {
            int before = fake.requestCount();
            for (int i = 0; i < 3; i++) {
                assertThat(ActuatorHealth.codex(context).status()).isEqualTo("UP");
            }
            assertThat(fake.requestCount()).as("the checks sent nothing").isEqualTo(before);
        });
    }

    @Test
    void aLostServerIsDownWithItsCause(FakeCodexAppServer fake) {
        connectedTo(runner, fake).run(context -> {
            CodexClient client = context.getBean(CodexClient.class);
            fake.apply(Fault.exit(3));
            awaitClosed(client);
            // The client's listeners hear of the end just after the client itself.
            CodexConnectionMonitor monitor = context.getBean(CodexConnectionMonitor.class);
            awaitCondition(() -> monitor.state().cause().isPresent());
            ActuatorHealth.Report health = ActuatorHealth.codex(context);
            assertThat(health.status()).isEqualTo("DOWN");
            assertThat(health.details()).containsEntry("reason", "the app-server was lost")
                    .doesNotContainKey("restarting");
            assertThat(health.details().get("error").toString()).contains("CodexTransportException");
            assertThat(context.getBean(CodexConnectionMonitor.class).state().cause()).isPresent();
        });
    }

    @Test
    void aLazyClientConnectsAtItsFirstUseNotAtTheStart(FakeCodexAppServer fake) {
        connectedTo(runner, fake).withPropertyValues("codex.lazy=true").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(fake.requestCount()).as("no handshake at the start").isZero();
            assertThat(ActuatorHealth.codex(context).status()).isEqualTo("UP");
            assertThat(fake.requestCount()).as("the first check connected").isPositive();
        });
    }

    @Test
    void aLazyClientThatCannotStartLetsTheApplicationStartAndIsDown() {
        runner.withPropertyValues("codex.lazy=true", "codex.binary=/nonexistent/bin/codex").run(context -> {
            assertThat(context).hasNotFailed();
            ActuatorHealth.Report health = ActuatorHealth.codex(context);
            assertThat(health.status()).isEqualTo("DOWN");
            assertThat(health.details().get("error").toString()).contains("/nonexistent/bin/codex");
        });
    }

    @Test
    void downWhenTheClientIsClosed(FakeCodexAppServer fake) {
        connectedTo(runner, fake).run(context -> {
            context.getBean(CodexClient.class).close();
            ActuatorHealth.Report health = ActuatorHealth.codex(context);
            assertThat(health.status()).isEqualTo("DOWN");
            assertThat(health.details()).containsEntry("reason", "the client is closed");
        });
    }

    @Test
    void downWhenTheServerIsGone(FakeCodexAppServer fake) {
        connectedTo(runner, fake).run(context -> {
            // The check asks the server nothing: it is DOWN once the client saw the end of the connection.
            fake.apply(Fault.exit(3));
            awaitClosed(context.getBean(CodexClient.class));
            ActuatorHealth.Report health = ActuatorHealth.codex(context);
            assertThat(health.status()).isEqualTo("DOWN");
        });
    }

    @Test
    void switchedOffByTheManagementProperty(FakeCodexAppServer fake) {
        connectedTo(runner, fake).withPropertyValues("management.health.codex.enabled=false").run(context ->
                assertThat(context).hasSingleBean(CodexClient.class).doesNotHaveBean("codexHealthIndicator"));
    }

    @Test
    void withoutActuatorTheClientIsConfiguredWithoutTheIndicator(FakeCodexAppServer fake) {
        connectedTo(runner, fake).withClassLoader(new FilteredClassLoader(ActuatorHealth.HEALTH_INDICATOR))
                .run(context -> assertThat(context).hasSingleBean(CodexClient.class).doesNotHaveBean("codexHealthIndicator"));
    }

    @Test
    void withoutAClientThereIsNoIndicator(FakeCodexAppServer fake) {
        connectedTo(runner, fake).withPropertyValues("codex.enabled=false").run(context ->
                assertThat(context).doesNotHaveBean("codexHealthIndicator"));
    }

    @Test
    void anIndicatorOfTheApplicationsOwnTakesItsPlace(FakeCodexAppServer fake) {
        ActuatorHealth.withOwnIndicator(connectedTo(runner, fake)).run(context -> {
            assertThat(context).doesNotHaveBean(ActuatorHealth.CODEX_INDICATOR)
                    .hasSingleBean(ActuatorHealth.HEALTH_INDICATOR);
            assertThat(ActuatorHealth.codex(context).status()).isEqualTo("UNKNOWN");
        });
    }

    /** Waits, bounded, for the client to see its connection's end (the reader notices the exit on its own thread). */
    private static void awaitClosed(CodexClient client) throws InterruptedException {
        awaitCondition(client::isClosed);
    }

    private static void awaitCondition(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("the condition within 10 s").isLessThan(deadline);
            Thread.sleep(5);
        }
    }
}
