package dev.codexclient.micrometer;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.CodexClientBuilder;
import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.DynamicTool;
import dev.codexclient.ToolResult;
import dev.codexclient.TurnResult;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.telemetry.TurnEnded;
import dev.codexclient.protocol.ClientRequestMethods;
import dev.codexclient.protocol.ProtocolJson;
import dev.codexclient.protocol.ThreadListParams;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.FakeCodexAppServer;
import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The listener on a real client talking to the testkit's fake app-server: the observations of requests and turns
 * (asserted with Micrometer's test registry), the timers a meter handler makes of them, and the listener's own
 * counters, timers and gauges.
 */
@Timeout(60)
class MicrometerTelemetryListenerTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final FakeCodexAppServer fake = new FakeCodexAppServer();
    private final TestObservationRegistry observations = TestObservationRegistry.create();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    /** Called after the listener under test (see composite): once it counts a turn, that listener handled it. */
    private final AtomicInteger turnsEnded = new AtomicInteger();
    private final CodexTelemetryListener countsTurnEnds = new CodexTelemetryListener() {
        @Override
        public void turnEnded(TurnEnded event) {
            turnsEnded.incrementAndGet();
        }
    };

    @AfterEach
    void closeFake() {
        fake.close();
    }

    private CodexClientBuilder client(CodexTelemetryListener listener) {
        return CodexClient.builder()
                .transport(fake.connectInMemory())
                .requestTimeout(Duration.ofSeconds(10))
                .telemetryListener(listener);
    }

    private MicrometerTelemetryListener listener() {
        return MicrometerTelemetryListener.builder(observations).meterRegistry(meters).build();
    }

    @Test
    void aTurnWithAnApprovalAndAToolCallBecomesObservationsAndMeters() throws Exception {
        observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
        fake.onTurnStart(t -> t
                .tokenUsage(100, 40, 20, 5)
                .commandApproval("make test", reply -> { })
                .toolCall("lookup", Map.of("id", 7), reply -> { })
                .tokenUsage(250, 90, 60, 15)
                .agentMessage("done")
                .completed());
        String threadId;
        String turnId;
        try (CodexClient client = client(listener())
                .experimentalApi(true)
                .tool(DynamicTool.ofJson("lookup", "Looks a ticket up", emptySchema(),
                        args -> ToolResult.text("ticket " + args.path("id").asInt())))
                .commandApprovals(ApprovalPolicy.sync(command -> ApprovalDecision.ACCEPT))
                .build()) {
            awaitCondition("the connection is counted", () -> gauge(MicrometerTelemetryListener.OPEN_CONNECTIONS) == 1);
            CodexThread thread = client.startThread();
            TurnResult result = thread.startTurn("go").await(WAIT);
            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
            threadId = thread.id();
            turnId = result.turnId().orElseThrow();
            awaitCondition("the turn's end is counted", () -> counter(MicrometerTelemetryListener.TOKENS,
                    MicrometerTelemetryListener.TOKEN_TYPE, "input") > 0);
        }
        assertThat(gauge(MicrometerTelemetryListener.OPEN_CONNECTIONS)).isZero();
        assertThat(gauge(MicrometerTelemetryListener.ACTIVE_TURNS)).isZero();

        // Observations: one per request (initialize, thread/start, turn/start) and one for the turn, all ended.
        assertThat(observations)
                .hasNumberOfObservationsWithNameEqualTo(DefaultCodexRequestObservationConvention.NAME, 3)
                // Outcome and attempts are known once a request has ended.
                .forAllObservationsWithNameEqualTo(DefaultCodexRequestObservationConvention.NAME, o -> o
                        .hasLowCardinalityKeyValue(DefaultCodexRequestObservationConvention.OUTCOME, "succeeded")
                        .hasHighCardinalityKeyValueWithKey(DefaultCodexRequestObservationConvention.REQUEST_ID)
                        .hasHighCardinalityKeyValue(DefaultCodexRequestObservationConvention.ATTEMPTS, "1"))
                .hasAnObservation(o -> o.hasNameEqualTo(DefaultCodexRequestObservationConvention.NAME)
                        .hasContextualNameEqualTo("turn/start")
                        .hasLowCardinalityKeyValue(DefaultCodexRequestObservationConvention.METHOD, "turn/start"))
                .hasObservationWithNameEqualTo(DefaultCodexTurnObservationConvention.NAME).that()
                .hasBeenStarted().hasBeenStopped()
                .hasContextualNameEqualTo("invoke_agent codex")
                .hasLowCardinalityKeyValue(DefaultCodexTurnObservationConvention.OPERATION_NAME, "invoke_agent")
                .hasLowCardinalityKeyValue(DefaultCodexTurnObservationConvention.PROVIDER_NAME, "openai")
                .hasLowCardinalityKeyValue(DefaultCodexTurnObservationConvention.AGENT_NAME, "codex")
                .hasLowCardinalityKeyValue(DefaultCodexTurnObservationConvention.ERROR_TYPE, "none")
                .hasLowCardinalityKeyValue(DefaultCodexTurnObservationConvention.STATUS, "completed")
                .hasHighCardinalityKeyValue(DefaultCodexTurnObservationConvention.CONVERSATION_ID, threadId)
                .hasHighCardinalityKeyValue(DefaultCodexTurnObservationConvention.TURN_ID, turnId)
                .doesNotHaveError();

        // The meter handler's timers carry the low-cardinality key values only: no ids among the tags.
        assertThat(meters.get(DefaultCodexRequestObservationConvention.NAME)
                .tags(DefaultCodexRequestObservationConvention.METHOD, "turn/start",
                        DefaultCodexRequestObservationConvention.OUTCOME, "succeeded").timer().count()).isEqualTo(1);
        assertThat(meters.get(DefaultCodexTurnObservationConvention.NAME)
                .tag(DefaultCodexTurnObservationConvention.STATUS, "completed").timer().count()).isEqualTo(1);
        for (Meter meter : meters.getMeters()) {
            assertThat(meter.getId().getTags()).extracting(Tag::getKey).doesNotContain(
                    DefaultCodexRequestObservationConvention.REQUEST_ID,
                    DefaultCodexTurnObservationConvention.CONVERSATION_ID, DefaultCodexTurnObservationConvention.TURN_ID);
        }

        // The listener's own meters: tokens of both model calls, the approval, the server requests, the handshake.
        assertThat(counter(MicrometerTelemetryListener.TOKENS, MicrometerTelemetryListener.TOKEN_TYPE, "input"))
                .isEqualTo(350);
        assertThat(counter(MicrometerTelemetryListener.TOKENS, MicrometerTelemetryListener.TOKEN_TYPE, "cached_input"))
                .isEqualTo(130);
        assertThat(counter(MicrometerTelemetryListener.TOKENS, MicrometerTelemetryListener.TOKEN_TYPE, "output"))
                .isEqualTo(80);
        assertThat(counter(MicrometerTelemetryListener.TOKENS, MicrometerTelemetryListener.TOKEN_TYPE, "reasoning_output"))
                .isEqualTo(20);
        // The GenAI convention's histogram: one record per turn and type.
        DistributionSummary input = meters.get(MicrometerTelemetryListener.TOKEN_USAGE)
                .tags(MicrometerTelemetryListener.GEN_AI_TOKEN_TYPE, "input",
                        DefaultCodexTurnObservationConvention.OPERATION_NAME, "invoke_agent",
                        DefaultCodexTurnObservationConvention.PROVIDER_NAME, "openai").summary();
        assertThat(input.count()).isEqualTo(1);
        assertThat(input.totalAmount()).isEqualTo(350);
        assertThat(meters.get(MicrometerTelemetryListener.TOKEN_USAGE)
                .tag(MicrometerTelemetryListener.GEN_AI_TOKEN_TYPE, "output").summary().totalAmount()).isEqualTo(80);
        assertThat(meters.get(MicrometerTelemetryListener.APPROVALS)
                .tags(MicrometerTelemetryListener.METHOD, "item/commandExecution/requestApproval",
                        MicrometerTelemetryListener.DECISION, "accept").counter().count()).isEqualTo(1);
        assertThat(meters.get(MicrometerTelemetryListener.SERVER_REQUESTS)
                .tags(MicrometerTelemetryListener.METHOD, "item/tool/call", MicrometerTelemetryListener.OUTCOME, "answered")
                .timer().count()).isEqualTo(1);
        assertThat(meters.get(MicrometerTelemetryListener.SERVER_REQUESTS)
                .tags(MicrometerTelemetryListener.METHOD, "item/commandExecution/requestApproval",
                        MicrometerTelemetryListener.OUTCOME, "answered").timer().count()).isEqualTo(1);
        assertThat(meters.get(MicrometerTelemetryListener.HANDSHAKES)
                .tag(MicrometerTelemetryListener.TRANSPORT, "in-memory").timer().count()).isEqualTo(1);
    }

    @Test
    void aFailedRequestAndAFailedTurnCarryTheirOutcomeAndError() throws Exception {
        fake.on("thread/list").once().respondError(-32600, "no such cursor");
        fake.onTurnStart(t -> t.agentMessage("trying").failed("the model is unavailable"));
        try (CodexClient client = client(CodexTelemetryListener.composite(listener(), countsTurnEnds)).build()) {
            try {
                client.rpc().call(ClientRequestMethods.THREAD_LIST, ThreadListParams.builder().build())
                        .get(WAIT.toSeconds(), TimeUnit.SECONDS);
            } catch (ExecutionException expected) {
                assertThat(expected.getCause()).isInstanceOf(CodexRpcException.class);
            }
            assertThat(client.startThread().startTurn("go").await(WAIT).status()).isEqualTo(TurnStatus.FAILED);
            awaitCondition("the turn's end was handled", () -> turnsEnded.get() == 1);
        }
        assertThat(observations)
                .hasAnObservation(o -> o.hasNameEqualTo(DefaultCodexRequestObservationConvention.NAME)
                        .hasLowCardinalityKeyValue(DefaultCodexRequestObservationConvention.METHOD, "thread/list")
                        .hasLowCardinalityKeyValue(DefaultCodexRequestObservationConvention.OUTCOME, "rpc_error")
                        .assertThatError().isInstanceOf(CodexRpcException.class))
                .hasObservationWithNameEqualTo(DefaultCodexTurnObservationConvention.NAME).that()
                .hasLowCardinalityKeyValue(DefaultCodexTurnObservationConvention.STATUS, "failed")
                .hasLowCardinalityKeyValue(DefaultCodexTurnObservationConvention.ERROR_TYPE,
                        "CodexTurnFailedException")
                .assertThatError().hasMessageContaining("the model is unavailable");
        assertThat(gauge(MicrometerTelemetryListener.ACTIVE_TURNS)).isZero();
    }

    @Test
    void customConventionsNameTheObservations() throws Exception {
        fake.onTurnStart(t -> t.agentMessage("ok").completed());
        MicrometerTelemetryListener listener = MicrometerTelemetryListener.builder(observations)
                .requestConvention(new DefaultCodexRequestObservationConvention() {
                    @Override
                    public String getName() {
                        return "myapp.codex.calls";
                    }

                    @Override
                    public KeyValues getLowCardinalityKeyValues(CodexRequestContext context) {
                        return super.getLowCardinalityKeyValues(context).and("myapp.tenant", "acme");
                    }
                })
                .turnConvention(new DefaultCodexTurnObservationConvention() {
                    @Override
                    public String getContextualName(CodexTurnContext context) {
                        return "turn " + context.started().threadId();
                    }
                })
                .build();
        String threadId;
        try (CodexClient client = client(CodexTelemetryListener.composite(listener, countsTurnEnds)).build()) {
            CodexThread thread = client.startThread();
            threadId = thread.id();
            thread.startTurn("go").await(WAIT);
            awaitCondition("the turn's end was handled", () -> turnsEnded.get() == 1);
        }
        assertThat(observations)
                .hasNumberOfObservationsWithNameEqualTo(DefaultCodexRequestObservationConvention.NAME, 0)
                .hasNumberOfObservationsWithNameEqualTo("myapp.codex.calls", 3)
                .forAllObservationsWithNameEqualTo("myapp.codex.calls",
                        o -> o.hasLowCardinalityKeyValue("myapp.tenant", "acme"))
                .hasObservationWithNameEqualTo(DefaultCodexTurnObservationConvention.NAME).that()
                .hasContextualNameEqualTo("turn " + threadId);
    }

    @Test
    void theGaugesOfOneRegistryAddUpEveryClient() {
        try (CodexClient first = client(listener()).build();
             CodexClient second = client(MicrometerTelemetryListener.builder(observations).meterRegistry(meters).build())
                     .build()) {
            awaitCondition("both connections are counted",
                    () -> gauge(MicrometerTelemetryListener.OPEN_CONNECTIONS) == 2);
            first.close();
            awaitCondition("one is left", () -> gauge(MicrometerTelemetryListener.OPEN_CONNECTIONS) == 1);
            assertThat(second.isClosed()).isFalse();
        }
        assertThat(gauge(MicrometerTelemetryListener.OPEN_CONNECTIONS)).isZero();
    }

    @Test
    void withoutAMeterRegistryOnlyObservationsAreMade() {
        MeterRegistry untouched = new SimpleMeterRegistry();
        try (CodexClient client = client(MicrometerTelemetryListener.builder(observations).build()).build()) {
            client.startThread();
        }
        assertThat(observations).hasNumberOfObservationsWithNameEqualTo(
                DefaultCodexRequestObservationConvention.NAME, 2);
        assertThat(untouched.getMeters()).isEmpty();
        assertThat(meters.getMeters()).isEmpty();
    }

    /** The setup of README.md's section "Metrics and tracing (Micrometer)"; keep the two in sync. */
    @Test
    void theReadmeSetupWorks() {
        fake.onTurnStart(t -> t.tokenUsage(7, 0, 3, 0).agentMessage("ok").completed());
        TestObservationRegistry observationRegistry = observations;
        MeterRegistry meterRegistry = meters;
        MicrometerTelemetryListener metrics = MicrometerTelemetryListener.builder(observationRegistry)
                .meterRegistry(meterRegistry).build();     // meterRegistry(…) is optional: counters, gauges, timers
        try (CodexClient codex = CodexClient.builder().transport(fake.connectInMemory())
                .telemetryListener(CodexTelemetryListener.composite(metrics, countsTurnEnds)).build()) {
            codex.startThread().startTurn("go").await(WAIT);
            awaitCondition("the turn's end was handled", () -> turnsEnded.get() == 1);
        }
        assertThat(counter(MicrometerTelemetryListener.TOKENS, MicrometerTelemetryListener.TOKEN_TYPE, "input")).isEqualTo(7);
        assertThat(observations).hasObservationWithNameEqualTo(DefaultCodexTurnObservationConvention.NAME);
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /** A pool's members, ejections and removals, as the pool reports them to the same listener. */
    @Test
    void aPoolsMembersAndTheirHealthBecomeGaugesAndCounters() {
        java.util.concurrent.atomic.AtomicInteger builtA = new java.util.concurrent.atomic.AtomicInteger();
        try (FakeCodexAppServer other = new FakeCodexAppServer()) {
            dev.codexclient.pool.CodexPool pool = dev.codexclient.pool.CodexPool.builder()
                    .member("a", () -> {
                        if (builtA.incrementAndGet() > 1) {
                            throw new IllegalStateException("gone");
                        }
                        return CodexClient.builder().transportFactory(fake::connectInMemory).build();
                    })
                    .member("b", () -> CodexClient.builder().transportFactory(other::connectInMemory).build())
                    .healthCheckEvery(Duration.ZERO, Duration.ofSeconds(5)).ejectAfter(1)
                    .telemetryListener(listener()).build();
            try {
                assertThat(gauge(MicrometerTelemetryListener.POOL_MEMBERS)).isEqualTo(2);
                assertThat(gauge(MicrometerTelemetryListener.POOL_MEMBERS_EJECTED)).isZero();
                pool.memberClient("a").orElseThrow().close();
                assertThat(pool.checkHealth()).isEqualTo(1);
                assertThat(gauge(MicrometerTelemetryListener.POOL_MEMBERS_EJECTED)).isEqualTo(1);
                assertThat(counter(MicrometerTelemetryListener.POOL_MEMBER_CHANGES, MicrometerTelemetryListener.CHANGE,
                        "ejected")).isEqualTo(1);
            } finally {
                pool.close();
            }
            assertThat(gauge(MicrometerTelemetryListener.POOL_MEMBERS)).isZero();
            assertThat(gauge(MicrometerTelemetryListener.POOL_MEMBERS_EJECTED)).isZero();
            assertThat(counter(MicrometerTelemetryListener.POOL_MEMBER_CHANGES, MicrometerTelemetryListener.CHANGE, "added"))
                    .isEqualTo(2);
            assertThat(counter(MicrometerTelemetryListener.POOL_MEMBER_CHANGES, MicrometerTelemetryListener.CHANGE,
                    "removed")).isEqualTo(2);
        }
    }

    private double gauge(String name) {
        return meters.get(name).gauge().value();
    }

    private double counter(String name, String tag, String value) {
        return meters.find(name).tag(tag, value).counters().stream().mapToDouble(c -> c.count()).sum();
    }

    private static ObjectNode emptySchema() {
        ObjectNode schema = ProtocolJson.mapper().createObjectNode();
        schema.put("type", "object");
        schema.putObject("properties");
        return schema;
    }

    /** Polls {@code condition}: the listener runs on the client's callback threads, after the calls return. */
    private static void awaitCondition(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }
}
