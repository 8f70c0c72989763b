package dev.codexclient.pool;

import static dev.codexclient.pool.PoolTestSupport.WAIT;
import static dev.codexclient.pool.PoolTestSupport.awaitCondition;
import static dev.codexclient.pool.PoolTestSupport.failureOf;
import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.RestartPolicy;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.telemetry.PooledThreadRecreated;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.testkit.Fault;
import dev.codexclient.testkit.RecordedRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A pooled thread is never stranded: one with no turn yet, which a restarted server cannot resume ("no rollout
 * found"), is started again on its member with the params it was started with; one that cannot be re-created fails
 * typed at once; the handle is valid right after a replacement.
 */
@Timeout(60)
class PoolStrandedThreadTest {
    private final List<PooledThreadRecreated> recreated = new CopyOnWriteArrayList<>();
    private final CodexTelemetryListener listener = new CodexTelemetryListener() {
        @Override
        public void pooledThreadRecreated(PooledThreadRecreated event) {
            recreated.add(event);
        }
    };

    private static CodexClient client(FakeCodexAppServer fake, boolean restarting) {
        var b = CodexClient.builder().transportFactory(fake::connectInMemory)
                .requestTimeout(Duration.ofSeconds(10)).initializeTimeout(Duration.ofSeconds(10));
        if (restarting) {
            b.restartPolicy(RestartPolicy.builder().backoff(Duration.ofMillis(10), Duration.ofMillis(50)).build());
        }
        return b.build();
    }

    /** codex's answer to resuming a thread that never had a turn. */
    private static void noRolloutFor(FakeCodexAppServer fake, String threadId) {
        fake.on("thread/resume", r -> r.params().path("threadId").asText().equals(threadId)).always()
                .respondError(-32600, "no rollout found for thread id " + threadId);
    }

    private static ThreadStartParams params() {
        return ThreadStartParams.builder().model("gpt-test").cwd("/work/project").build();
    }

    private static List<RecordedRequest> starts(FakeCodexAppServer fake) {
        return fake.requests().stream().filter(r -> r.method().equals("thread/start")).toList();
    }

    @Test
    void afterAReplacementAThreadWithoutTurnsIsStartedAgainWithItsParamsAndItsHandleIsValidAtOnce()
            throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer();
             CodexPool pool = PoolProbe.useTimer(CodexPool.builder(),
                             new ManualTimer())
                     .member("only", () -> client(fake, false)).telemetryListener(listener).build()) {
            PooledThread fresh = pool.startThread(params());
            PooledThread used = pool.startThread(params());
            assertThat(used.startTurn("first").await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
            PooledThread resumedOnly = pool.resumeThread(pool.startThread().id());
            String freshId = fresh.id();
            noRolloutFor(fake, freshId);
            noRolloutFor(fake, resumedOnly.id());

            fake.apply(Fault.exit(137));
            awaitCondition("the member's client sees its end", () -> !pool.stats().get(0).healthy());
            assertThat(pool.checkHealth()).isEqualTo(1);

            // Valid right after the replacement: the handle is on the new client, under a new id.
            var handle = fresh.memberThread();
            assertThat(PoolProbe.handleIsCurrent(fresh)).isTrue();
            assertThat(handle.id()).isNotEqualTo(freshId).isEqualTo(fresh.id());
            assertThat(recreated).singleElement().satisfies(e -> {
                assertThat(e.member()).isEqualTo("only");
                assertThat(e.oldThreadId()).isEqualTo(freshId);
                assertThat(e.newThreadId()).isEqualTo(fresh.id());
            });
            RecordedRequest again = starts(fake).get(starts(fake).size() - 1);
            assertThat(again.params().path("model").asText()).isEqualTo("gpt-test");
            assertThat(again.params().path("cwd").asText()).isEqualTo("/work/project");
            assertThat(fresh.startTurn("now").await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(fake.requests().stream().filter(r -> r.method().equals("turn/start")))
                    .last().satisfies(r -> assertThat(r.params().path("threadId").asText()).isEqualTo(fresh.id()));
            // Params built before, naming the former id, go to the thread that replaced it.
            var former = dev.codexclient.protocol.TurnStartParams.builder().threadId(freshId)
                    .input(List.of(dev.codexclient.Inputs.text("built earlier"))).build();
            assertThat(fresh.startTurn(former).await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(fake.requests().stream().filter(r -> r.method().equals("turn/start")))
                    .last().satisfies(r -> assertThat(r.params().path("threadId").asText()).isEqualTo(fresh.id()));

            // A thread with a turn is resumed under its id.
            assertThat(used.startTurn("second").await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(used.memberThread().id()).isEqualTo(used.id());

            // One taken in by resumeThread has no params to start again with: typed at once, with codex's reason.
            assertThat(failureOf(resumedOnly.startTurnAsync("lost"), WAIT))
                    .isInstanceOf(CodexRpcException.class).hasMessageContaining("no rollout found");
            assertThat(recreated).hasSize(1);
        }
    }

    @Test
    void underARestartPolicyTheThreadLetGoIsStartedAgainByItsNextTurn() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer();
             CodexPool pool = PoolProbe.useTimer(CodexPool.builder(),
                             new ManualTimer())
                     .member("only", () -> client(fake, true)).telemetryListener(listener).build()) {
            PooledThread fresh = pool.startThread(params());
            String freshId = fresh.id();
            noRolloutFor(fake, freshId);
            fake.apply(Fault.exit(137));
            fake.awaitConnections(2, WAIT);

            assertThat(fresh.startTurn("after the restart").await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(fresh.id()).isNotEqualTo(freshId);
            assertThat(recreated).singleElement().satisfies(e -> assertThat(e.newThreadId()).isEqualTo(fresh.id()));
            assertThat(pool.stats().get(0).replacements()).isZero();
            assertThat(pool.stats().get(0).threads()).isEqualTo(1);
            assertThat(fake.requests().stream().filter(r -> r.method().equals("thread/resume"))
                    .map(r -> r.params().path("threadId").asText())).contains(freshId);
        }
    }
}
