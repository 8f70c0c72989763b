package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.WAIT;
import static dev.codexclient.it.ClientTestSupport.awaitCondition;
import static dev.codexclient.it.ClientTestSupport.failureOf;
import static dev.codexclient.it.ClientTestSupport.inMemory;
import static dev.codexclient.it.ClientTestSupport.withClock;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.CodexClientBuilder;
import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.DynamicTool;
import dev.codexclient.ToolResult;
import dev.codexclient.TurnResult;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.errors.CodexTurnFailedException;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.telemetry.ConnectionClosed;
import dev.codexclient.telemetry.ConnectionOpened;
import dev.codexclient.telemetry.RequestEnded;
import dev.codexclient.telemetry.RequestOutcome;
import dev.codexclient.telemetry.RequestStarted;
import dev.codexclient.telemetry.ServerRequestHandled;
import dev.codexclient.telemetry.ServerRequestOutcome;
import dev.codexclient.telemetry.TokenCounts;
import dev.codexclient.telemetry.TurnEnded;
import dev.codexclient.telemetry.TurnStarted;
import dev.codexclient.internal.time.ManualScheduler;
import dev.codexclient.protocol.ClientRequestMethods;
import dev.codexclient.protocol.ProtocolJson;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.testkit.Fault;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The events a client tells its {@link CodexTelemetryListener}: their exact sequence and contents for a turn with an
 * approval and a tool call, a timeout, an RPC error and overload retries, a close and a lost connection; that the
 * listener runs apart from message delivery; and that no secret reaches an event. Durations are on a manual clock,
 * so they are exact.
 */
@Timeout(60)
class EventListenerTest {
    private static final String SECRET = "sk-test-EVENTS0123456789abcdef";

    private final ManualScheduler clock = new ManualScheduler();
    private final FakeCodexAppServer fake = new FakeCodexAppServer();
    private final Recorder recorder = new Recorder();

    @AfterEach
    void closeFake() {
        fake.close();
    }

    private CodexClientBuilder client() {
        return withClock(inMemory(fake), clock).telemetryListener(recorder);
    }

    @Test
    void aTurnWithAnApprovalAndAToolCallIsReportedInOrder() throws Exception {
        fake.onTurnStart(t -> t
                .tokenUsage(100, 40, 20, 5)
                .commandApproval("make test", reply -> { })
                .toolCall("lookup", Map.of("id", 7), reply -> { })
                .tokenUsage(250, 90, 60, 15)
                .agentMessage("done")
                .completed());
        CountDownLatch turnStartedSeen = new CountDownLatch(1);
        recorder.onTurnStarted = turnStartedSeen::countDown;
        try (CodexClient client = client()
                .experimentalApi(true)
                .tool(DynamicTool.ofJson("lookup", "Looks a ticket up", emptySchema(),
                        args -> ToolResult.text("ticket " + args.path("id").asInt())))
                .commandApprovals(ApprovalPolicy.sync(command -> {
                    // Server requests and notifications travel apart; wait for the turn's start so the order below
                    // is the one the test asserts, then let time pass while "deciding".
                    if (!turnStartedSeen.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                        throw new AssertionError("turnStarted was not reported");
                    }
                    clock.advance(Duration.ofMillis(250));
                    return ApprovalDecision.ACCEPT;
                }))
                .build()) {
            CodexThread thread = client.startThread();
            TurnResult result = thread.startTurn("go").await(WAIT);
            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
        }

        List<Object> events = recorder.events();
        assertThat(events).extracting(Recorder::describe).containsExactly(
                "requestStarted initialize",
                "requestEnded initialize SUCCEEDED",
                "connectionOpened in-memory",
                "requestStarted thread/start",
                "requestEnded thread/start SUCCEEDED",
                "requestStarted turn/start",
                "requestEnded turn/start SUCCEEDED",
                "turnStarted",
                "serverRequestHandled item/commandExecution/requestApproval ANSWERED",
                "serverRequestHandled item/tool/call ANSWERED",
                "turnEnded completed",
                "connectionClosed byUser");

        RequestStarted initialize = (RequestStarted) events.get(0);
        RequestEnded initialized = (RequestEnded) events.get(1);
        assertThat(initialized.started()).isSameAs(initialize);
        assertThat(initialized.attempts()).isEqualTo(1);
        assertThat(initialized.error()).isEmpty();
        assertThat(initialized.duration()).isEqualTo(Duration.ZERO);
        ConnectionOpened opened = (ConnectionOpened) events.get(2);
        assertThat(opened.transport()).isEqualTo(dev.codexclient.transport.TransportKind.IN_MEMORY);
        assertThat(opened.serverInfo().userAgent()).isPresent();
        assertThat(opened.handshake()).isEqualTo(Duration.ZERO);

        TurnStarted started = (TurnStarted) events.get(7);
        assertThat(started.threadId()).isEqualTo(fake.threadIds().get(0));
        assertThat(started.turnId()).isNotBlank();
        ServerRequestHandled approval = (ServerRequestHandled) events.get(8);
        assertThat(approval.decision()).contains(ApprovalDecision.ACCEPT);
        assertThat(approval.handling()).isEqualTo(Duration.ofMillis(250));
        ServerRequestHandled tool = (ServerRequestHandled) events.get(9);
        assertThat(tool.decision()).isEmpty();
        assertThat(tool.handling()).isEqualTo(Duration.ZERO);

        TurnEnded ended = (TurnEnded) events.get(10);
        assertThat(ended.started()).isSameAs(started);
        assertThat(ended.error()).isEmpty();
        assertThat(ended.duration()).isEqualTo(Duration.ofMillis(250));
        assertThat(ended.tokenUsage()).hasValueSatisfying(u -> {
            assertThat(u.total().inputTokens()).isEqualTo(350);
            assertThat(u.last().outputTokens()).isEqualTo(60);
        });
        // The turn's own spending, over both of its model calls.
        assertThat(ended.turnTokens()).contains(new TokenCounts(350, 130, 80, 20, 430));
        ConnectionClosed closed = (ConnectionClosed) events.get(11);
        assertThat(closed.closedByUser()).isTrue();
        assertThat(closed.cause()).isEmpty();
        assertThat(closed.openFor()).isEqualTo(Duration.ofMillis(250));
        assertThat(started.sequence()).isNotEqualTo(initialize.sequence());
    }

    @Test
    void eachTurnCountsOnlyTheTokensItSpent() {
        fake.onTurnStart(t -> t.tokenUsage(10, 2, 5, 1).tokenUsage(10, 2, 5, 1).agentMessage("ok").completed());
        try (CodexClient client = client().build()) {
            CodexThread thread = client.startThread();
            thread.startTurn("one").await(WAIT);
            thread.startTurn("two").await(WAIT);
            awaitCondition("both ends were reported", () -> recorder.count(TurnEnded.class) == 2);
        }
        List<TurnEnded> ended = recorder.all(TurnEnded.class);
        // The thread's total is 40 input tokens after the second turn; the second turn spent half of it.
        assertThat(ended.get(1).tokenUsage().orElseThrow().total().inputTokens()).isEqualTo(40);
        assertThat(ended).extracting(e -> e.turnTokens().orElseThrow())
                .containsExactly(new TokenCounts(20, 4, 10, 2, 30), new TokenCounts(20, 4, 10, 2, 30));
    }

    @Test
    void aRequestThatGetsNoAnswerTimesOutOnTheClientsClock() {
        fake.on("thread/list").noReply();
        try (CodexClient client = client().requestTimeout(Duration.ofSeconds(3)).build()) {
            CompletableFuture<?> call = client.rpc().call(ClientRequestMethods.THREAD_LIST,
                    dev.codexclient.protocol.ThreadListParams.builder().build());
            awaitCondition("thread/list reached the server", () -> fake.requests().stream()
                    .anyMatch(r -> r.method().equals("thread/list")));
            clock.advance(Duration.ofMillis(2_999));
            assertThat(call).isNotDone();
            clock.advance(Duration.ofMillis(1));
            assertThat(failureOf(call, WAIT)).isInstanceOf(CodexTimeoutException.class);
            awaitCondition("the end was reported", () -> recorder.count(RequestEnded.class) == 2);
        }
        RequestEnded ended = recorder.last(RequestEnded.class, e -> e.method().equals("thread/list"));
        assertThat(ended.outcome()).isEqualTo(RequestOutcome.TIMED_OUT);
        assertThat(ended.duration()).isEqualTo(Duration.ofSeconds(3));
        assertThat(ended.error()).containsInstanceOf(CodexTimeoutException.class);
        assertThat(ended.attempts()).isEqualTo(1);
        assertThat(ended.started().requestId()).isEqualTo("1");
    }

    @Test
    void anRpcErrorAndOverloadRetriesAreReportedWithTheirAttempts() {
        fake.on("thread/start").once().respondError(-32600, "no such model");
        fake.on("thread/list").times(2).respondError(-32001, "server overloaded; retry later");
        try (CodexClient client = client().build()) {
            assertThat(failureOf(client.rpc().call(ClientRequestMethods.THREAD_START,
                    ThreadStartParams.builder().build()), WAIT)).isInstanceOf(CodexRpcException.class);
            CompletableFuture<?> listed = client.rpc().call(ClientRequestMethods.THREAD_LIST,
                    dev.codexclient.protocol.ThreadListParams.builder().build());
            // Each retry waits out a backoff of at most 20 ms on the manual clock.
            while (!listed.isDone()) {
                awaitCondition("a retry is scheduled or the call is done",
                        () -> listed.isDone() || clock.pendingTasks() > 1);
                clock.advance(Duration.ofMillis(20));
            }
            assertThat(listed).isCompleted();
            awaitCondition("the ends were reported", () -> recorder.count(RequestEnded.class) == 3);
        }
        RequestEnded rejected = recorder.last(RequestEnded.class, e -> e.method().equals("thread/start"));
        assertThat(rejected.outcome()).isEqualTo(RequestOutcome.RPC_ERROR);
        assertThat(rejected.error()).hasValueSatisfying(e -> {
            assertThat(e).isInstanceOf(CodexRpcException.class);
            assertThat(((CodexRpcException) e).code()).isEqualTo(-32600);
        });
        assertThat(rejected.attempts()).isEqualTo(1);
        RequestEnded retried = recorder.last(RequestEnded.class, e -> e.method().equals("thread/list"));
        assertThat(retried.outcome()).isEqualTo(RequestOutcome.SUCCEEDED);
        assertThat(retried.attempts()).isEqualTo(3);
        // One start for the call across its attempts.
        assertThat(recorder.all(RequestStarted.class)).filteredOn(s -> s.method().equals("thread/list")).hasSize(1);
    }

    @Test
    void aLostConnectionEndsItsRequestsAndTurnsAndIsNoUserClose() throws Exception {
        fake.onTurnStart(t -> t.agentMessage("working").neverComplete());
        fake.on("thread/list").noReply();
        try (CodexClient client = client().build()) {
            CodexTurn turn = client.startThread().startTurn("go");
            CompletableFuture<Void> running = new CompletableFuture<>();
            turn.onEvent(n -> running.complete(null));
            running.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            CompletableFuture<?> call = client.rpc().call(ClientRequestMethods.THREAD_LIST,
                    dev.codexclient.protocol.ThreadListParams.builder().build());
            awaitCondition("thread/list reached the server", () -> fake.requests().stream()
                    .anyMatch(r -> r.method().equals("thread/list")));
            clock.advance(Duration.ofSeconds(1));
            fake.apply(Fault.closeStdout());
            assertThat(failureOf(call, WAIT)).isInstanceOf(CodexTransportException.class);
            awaitCondition("the close was reported", () -> recorder.count(ConnectionClosed.class) == 1);
        }
        RequestEnded lost = recorder.last(RequestEnded.class, e -> e.method().equals("thread/list"));
        assertThat(lost.outcome()).isEqualTo(RequestOutcome.CONNECTION_LOST);
        assertThat(lost.duration()).isEqualTo(Duration.ofSeconds(1));
        TurnEnded ended = recorder.last(TurnEnded.class, e -> true);
        assertThat(ended.status()).isEqualTo(TurnStatus.FAILED);
        assertThat(ended.error()).containsInstanceOf(CodexTransportException.class);
        ConnectionClosed closed = recorder.last(ConnectionClosed.class, e -> true);
        assertThat(closed.closedByUser()).isFalse();
        assertThat(closed.cause()).containsInstanceOf(CodexTransportException.class);
        assertThat(closed.openFor()).isEqualTo(Duration.ofSeconds(1));
        // The end of the connection is the last event: its requests and turns were reported before it.
        assertThat(recorder.events().get(recorder.events().size() - 1)).isInstanceOf(ConnectionClosed.class);
    }

    @Test
    void aCancelledCallIsReportedAsCancelled() {
        fake.on("thread/list").noReply();
        try (CodexClient client = client().build()) {
            CompletableFuture<?> call = client.rpc().call(ClientRequestMethods.THREAD_LIST,
                    dev.codexclient.protocol.ThreadListParams.builder().build());
            call.cancel(true);
            awaitCondition("the end was reported", () -> recorder.count(RequestEnded.class) == 2);
        }
        RequestEnded ended = recorder.last(RequestEnded.class, e -> e.method().equals("thread/list"));
        assertThat(ended.outcome()).isEqualTo(RequestOutcome.CANCELLED);
        assertThat(ended.error()).isEmpty();
    }

    @Test
    void aListenerThatBlocksDelaysNoMessageDelivery() throws Exception {
        fake.onTurnStart(t -> t.agentMessage("hello").completed());
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch blocked = new CountDownLatch(1);
        recorder.onTurnStarted = () -> {
            blocked.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        List<ServerNotification> delivered = new CopyOnWriteArrayList<>();
        try (CodexClient client = client().onNotification(delivered::add).build()) {
            CodexTurn turn = client.startThread().startTurn("go");
            assertThat(blocked.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            // The event listener is stuck in turnStarted, yet the turn's messages all arrive and it ends.
            TurnResult result = turn.result().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(result.finalText()).isEqualTo("hello");
            assertThat(delivered).anyMatch(n -> n instanceof ServerNotification.TurnCompleted);
            assertThat(recorder.count(TurnEnded.class)).isZero();
            release.countDown();
            awaitCondition("the held-up events arrive", () -> recorder.count(TurnEnded.class) == 1);
        }
    }

    @Test
    void aListenerThatThrowsKeepsReceiving() {
        fake.onTurnStart(t -> t.agentMessage("hello").completed());
        List<String> calls = new CopyOnWriteArrayList<>();
        CodexTelemetryListener throwing = new CodexTelemetryListener() {
            @Override
            public void requestStarted(RequestStarted event) {
                calls.add("requestStarted " + event.method());
                throw new IllegalStateException("listener bug");
            }

            @Override
            public void turnStarted(TurnStarted event) {
                calls.add("turnStarted");
                throw new IllegalStateException("listener bug");
            }

            @Override
            public void turnEnded(TurnEnded event) {
                calls.add("turnEnded");
                throw new IllegalStateException("listener bug");
            }
        };
        try (CodexClient client = withClock(inMemory(fake), clock).telemetryListener(throwing).build()) {
            assertThat(client.startThread().startTurn("go").await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
            awaitCondition("the turn's end reached the listener", () -> calls.contains("turnEnded"));
        }
        assertThat(calls).containsExactly("requestStarted initialize", "requestStarted thread/start",
                "requestStarted turn/start", "turnStarted", "turnEnded");
    }

    @Test
    void noRegisteredSecretAppearsInAnyEvent() throws Exception {
        fake.on("thread/list").once().respondError(-32600, "invalid api key " + SECRET);
        fake.onTurnStart(t -> t.agentMessage("checking").failed("incorrect API key provided: " + SECRET));
        try (CodexClient client = client().secret(SECRET).build()) {
            failureOf(client.rpc().call(ClientRequestMethods.THREAD_LIST,
                    dev.codexclient.protocol.ThreadListParams.builder().build()), WAIT);
            TurnResult failed = client.startThread().startTurn("go").await(WAIT);
            assertThat(failed.status()).isEqualTo(TurnStatus.FAILED);
            awaitCondition("the turn's end was reported", () -> recorder.count(TurnEnded.class) == 1);
        }
        TurnEnded ended = recorder.last(TurnEnded.class, e -> true);
        assertThat(ended.error()).containsInstanceOf(CodexTurnFailedException.class);
        assertThat(recorder.last(RequestEnded.class, e -> e.method().equals("thread/list")).error()).isPresent();
        for (Object event : recorder.events()) {
            assertThat(event.toString()).doesNotContain(SECRET);
        }
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private static ObjectNode emptySchema() {
        ObjectNode schema = ProtocolJson.mapper().createObjectNode();
        schema.put("type", "object");
        schema.putObject("properties");
        return schema;
    }

    /** Records every event, in the order the listener is called. */
    static final class Recorder implements CodexTelemetryListener {
        private final List<Object> events = new CopyOnWriteArrayList<>();
        volatile Runnable onTurnStarted = () -> { };

        List<Object> events() {
            return new ArrayList<>(events);
        }

        int count(Class<?> type) {
            return (int) events.stream().filter(type::isInstance).count();
        }

        <T> List<T> all(Class<T> type) {
            return events.stream().filter(type::isInstance).map(type::cast).toList();
        }

        <T> T last(Class<T> type, Predicate<T> filter) {
            List<T> matching = all(type).stream().filter(filter).toList();
            assertThat(matching).as("events of type " + type.getSimpleName()).isNotEmpty();
            return matching.get(matching.size() - 1);
        }

        static String describe(Object event) {
            if (event instanceof RequestStarted s) {
                return "requestStarted " + s.method();
            } else if (event instanceof RequestEnded e) {
                return "requestEnded " + e.method() + " " + e.outcome();
            } else if (event instanceof ConnectionOpened o) {
                return "connectionOpened " + o.transport();
            } else if (event instanceof ConnectionClosed c) {
                return "connectionClosed " + (c.closedByUser() ? "byUser" : "failure");
            } else if (event instanceof ServerRequestHandled h) {
                return "serverRequestHandled " + h.method() + " " + h.outcome();
            } else if (event instanceof TurnStarted) {
                return "turnStarted";
            } else if (event instanceof TurnEnded e) {
                return "turnEnded " + e.status().asString();
            }
            return event.toString();
        }

        @Override
        public void connectionOpened(ConnectionOpened event) {
            events.add(event);
        }

        @Override
        public void connectionClosed(ConnectionClosed event) {
            events.add(event);
        }

        @Override
        public void requestStarted(RequestStarted event) {
            events.add(event);
        }

        @Override
        public void requestEnded(RequestEnded event) {
            events.add(event);
        }

        @Override
        public void serverRequestHandled(ServerRequestHandled event) {
            events.add(event);
        }

        @Override
        public void turnStarted(TurnStarted event) {
            events.add(event);
            onTurnStarted.run();
        }

        @Override
        public void turnEnded(TurnEnded event) {
            events.add(event);
        }
    }
}
