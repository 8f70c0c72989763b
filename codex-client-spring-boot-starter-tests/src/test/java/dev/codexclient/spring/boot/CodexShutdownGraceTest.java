package dev.codexclient.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.ApprovalRequest;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexTurn;
import dev.codexclient.TurnResult;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.transport.Transport;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code codex.shutdown-grace-period} with a turn running when the context closes: the client stays open while the
 * turn finishes within the period, and is closed, ending the turn, once the period is over. The turn is held open by
 * an approval the test answers when it chooses, so nothing depends on how fast the machine is.
 */
@ExtendWith(CodexTestExtension.class)
class CodexShutdownGraceTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CodexAutoConfiguration.class));
    /** The decision of the turn's approval: the turn runs until the test completes it. */
    private final CompletableFuture<ApprovalDecision> decision = new CompletableFuture<>();
    private final CompletableFuture<Void> asked = new CompletableFuture<>();
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger shutdownLog = (Logger) LoggerFactory.getLogger(CodexShutdown.class);

    @BeforeEach
    void listen() {
        log.start();
        shutdownLog.addAppender(log);
    }

    @AfterEach
    void stopListening() {
        shutdownLog.detachAppender(log);
    }

    private ApplicationContextRunner withARunningTurn(FakeCodexAppServer fake, String grace) {
        fake.onTurnStart(t -> t.commandApproval("make release", reply -> { })
                .agentMessage("Released.").completed());
        ApprovalPolicy<ApprovalRequest> held = request -> {
            asked.complete(null);
            return decision;
        };
        return runner.withPropertyValues("codex.shutdown-grace-period=" + grace, "codex.close-timeout=1s")
                .withBean(Transport.class, fake::connectInMemory)
                .withBean(ApprovalPolicy.class, () -> held);
    }

    @Test
    void aTurnThatEndsWithinTheGracePeriodEndsWellAndTheClientClosesAfterIt(FakeCodexAppServer fake) {
        // A period far longer than the test: the close can only end through the turn's end.
        withARunningTurn(fake, "1h").run(context -> {
            CodexClient client = context.getBean(CodexClient.class);
            CodexTurn turn = client.startThread().startTurn("Release it");
            asked.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            // The monitor counts the turn when its event arrives, on the client's callback thread.
            CodexConnectionMonitor monitor = context.getBean(CodexConnectionMonitor.class);
            await(() -> monitor.runningTurns() == 1);

            CompletableFuture<Void> closed = CompletableFuture.runAsync(((ConfigurableApplicationContext) context)::close);
            await(() -> logged("waiting up to PT1H (codex.shutdown-grace-period) for 1 running turn(s)"));
            assertThat(client.isClosed()).as("open while the turn runs").isFalse();
            assertThat(closed).as("the close waits for the turn").isNotDone();

            decision.complete(ApprovalDecision.ACCEPT);
            TurnResult result = turn.await(WAIT);
            assertThat(result.status()).as("the turn ended on its own").isEqualTo(TurnStatus.COMPLETED);
            assertThat(result.finalText()).isEqualTo("Released.");
            closed.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(client.isClosed()).as("closed with the context, after the turn").isTrue();
            assertThat(log.list).noneSatisfy(e -> assertThat(e.getFormattedMessage()).contains("still running"));
        });
    }

    @Test
    void aTurnStillRunningAfterTheGracePeriodIsEndedByTheClose(FakeCodexAppServer fake) {
        withARunningTurn(fake, "100ms").run(context -> {
            CodexClient client = context.getBean(CodexClient.class);
            CodexTurn turn = client.startThread().startTurn("Release it");
            asked.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            // The monitor counts the turn when its event arrives, on the client's callback thread.
            CodexConnectionMonitor monitor = context.getBean(CodexConnectionMonitor.class);
            await(() -> monitor.runningTurns() == 1);

            ((ConfigurableApplicationContext) context).close();

            assertThat(client.isClosed()).isTrue();
            assertThat(turn.result()).as("ended by the close").failsWithin(WAIT);
            assertThat(log.list).anySatisfy(e -> assertThat(e.getFormattedMessage())
                    .contains("1 turn(s) still running after codex.shutdown-grace-period (PT0.1S)"));
        });
    }

    @Test
    void noTurnRunningClosesAtOnceWithoutWaiting(FakeCodexAppServer fake) {
        withARunningTurn(fake, "1h").run(context -> {
            CodexClient client = context.getBean(CodexClient.class);
            ((ConfigurableApplicationContext) context).close();
            assertThat(client.isClosed()).isTrue();
            assertThat(log.list).as("no wait announced").isEmpty();
        });
    }

    /** The appender adds under its own lock, on the closing thread. */
    private boolean logged(String text) {
        synchronized (log) {
            return log.list.stream().anyMatch(e -> e.getFormattedMessage().contains(text));
        }
    }

    /** Waits, bounded, for what another thread does (the close runs on its own thread). */
    private static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("the condition within %s", WAIT).isLessThan(deadline);
            Thread.sleep(5);
        }
    }
}
