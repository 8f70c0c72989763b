package dev.codexclient.internal.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.errors.CodexOverloadedException;
import dev.codexclient.errors.CodexProtocolException;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.internal.time.ManualScheduler;
import dev.codexclient.protocol.RequestId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/**
 * The client's calls in flight, on a manual clock: deadlines fire exactly when they are due, overloads are sent
 * again exactly when their backoff ends, and every outcome leaves the table.
 */
class RequestCorrelatorTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final ObjectMapper mapper = new ObjectMapper();
    private final ManualScheduler clock = new ManualScheduler();
    private final List<JsonNode> sent = new ArrayList<>();
    private volatile boolean failSends;
    /** Backoff without randomness: the full bound every time. */
    private RequestCorrelator calls = correlator(new RpcSettings(TIMEOUT, 4, Duration.ofMillis(100),
            Duration.ofMillis(300), Duration.ofSeconds(5)));

    private RequestCorrelator correlator(RpcSettings settings) {
        return new RequestCorrelator(settings, clock, new JsonWireCodec(mapper), bytes -> {
            if (failSends) {
                throw new CodexTransportException("the pipe broke");
            }
            try {
                sent.add(mapper.readTree(bytes));
            } catch (java.io.IOException e) {
                throw new AssertionError(e);
            }
        }, Runnable::run, s -> s.replace("sk-SECRET", "[REDACTED]"), bound -> bound, "test peer");
    }

    private RequestId lastId() {
        return RequestId.of(sent.get(sent.size() - 1).get("id").asLong());
    }

    private static Throwable failure(CompletableFuture<?> f) {
        assertThat(f).isDone();
        try {
            f.get();
            throw new AssertionError("expected a failure");
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aCallTimesOutExactlyWhenItsDeadlinePassesAndLeavesNothingBehind() {
        CompletableFuture<JsonNode> f = calls.call("slow/method", null, JsonNode.class, null);
        RequestId id = lastId();

        clock.advance(TIMEOUT.minusNanos(1));
        assertThat(f).isNotDone();
        clock.advance(Duration.ofNanos(1));

        assertThat(failure(f)).isInstanceOfSatisfying(CodexTimeoutException.class, e -> {
            assertThat(e.method()).isEqualTo("slow/method");
            assertThat(e.requestId()).contains(id.toString());
            assertThat(e.timeout()).isEqualTo(TIMEOUT);
        });
        assertThat(calls.pendingCount()).isZero();
        // A late response finds nothing: the connection logs it as unmatched.
        assertThat(calls.onResult(id, mapper.createObjectNode())).isFalse();
        assertThat(clock.pendingTasks()).isZero();
    }

    @Test
    void eachCallTimesOutAtItsOwnDeadlineWhateverElseIsInFlight() {
        // A long deadline watched first must not delay a shorter one registered after it, and answered or
        // expired calls must not disturb the deadlines of those still waiting.
        CompletableFuture<JsonNode> lenient = calls.call("lenient", null, JsonNode.class, Duration.ofSeconds(4));
        RequestId lenientId = lastId();
        CompletableFuture<JsonNode> strict = calls.call("strict", null, JsonNode.class, Duration.ofMillis(200));
        CompletableFuture<JsonNode> middle = calls.call("middle", null, JsonNode.class, Duration.ofMillis(400));
        CompletableFuture<JsonNode> answered = calls.call("answered", null, JsonNode.class, Duration.ofMillis(100));
        assertThat(calls.onResult(lastId(), mapper.createObjectNode().put("ok", 1))).isTrue();
        assertThat(answered.join().get("ok").asInt()).isEqualTo(1);

        clock.advance(Duration.ofMillis(199));
        assertThat(strict).isNotDone();
        clock.advance(Duration.ofMillis(1));
        assertThat(failure(strict)).isInstanceOf(CodexTimeoutException.class).hasMessageContaining("strict");
        assertThat(middle).isNotDone();
        clock.advance(Duration.ofMillis(199));
        assertThat(middle).isNotDone();
        clock.advance(Duration.ofMillis(1));
        assertThat(failure(middle)).isInstanceOf(CodexTimeoutException.class).hasMessageContaining("middle");

        assertThat(lenient).isNotDone();
        assertThat(calls.pendingCount()).isEqualTo(1);
        assertThat(calls.onResult(lenientId, mapper.createObjectNode().put("late", true))).isTrue();
        assertThat(lenient.join().get("late").asBoolean()).isTrue();
        assertThat(calls.pendingCount()).isZero();
    }

    @Test
    void aCallAfterTheWatchedDeadlinesExpiredIsStillWatched() {
        CompletableFuture<JsonNode> first = calls.call("first", null, JsonNode.class, Duration.ofMillis(50));
        clock.advance(Duration.ofMillis(50));
        assertThat(failure(first)).isInstanceOf(CodexTimeoutException.class);
        // Nothing is pending now, so no check is scheduled: the next call must schedule its own.
        assertThat(clock.pendingTasks()).isZero();
        CompletableFuture<JsonNode> second = calls.call("second", null, JsonNode.class, Duration.ofMillis(50));
        clock.advance(Duration.ofMillis(50));
        assertThat(failure(second)).isInstanceOf(CodexTimeoutException.class).hasMessageContaining("second");
    }

    @Test
    void oneCheckWatchesManyCallsThatShareATimeout() {
        for (int i = 0; i < 100; i++) {
            calls.call("m", null, JsonNode.class, null);
            clock.advance(Duration.ofMillis(1));
        }
        assertThat(clock.pendingTasks()).isEqualTo(1);
    }

    @Test
    void anOverloadIsSentAgainUnderANewIdWhenItsBackoffEnds() {
        CompletableFuture<JsonNode> f = calls.call("turn/start", null, JsonNode.class, null);
        RequestId first = lastId();
        assertThat(calls.onError(first, overloaded())).isTrue();
        assertThat(calls.pendingCount()).isZero();

        // Attempt 1 backs off up to 100 ms (this test's jitter takes the whole bound).
        clock.advance(Duration.ofMillis(99));
        assertThat(sent).hasSize(1);
        clock.advance(Duration.ofMillis(1));
        assertThat(sent).hasSize(2);
        RequestId second = lastId();
        assertThat(second).isNotEqualTo(first);
        assertThat(sent.get(1).get("method").asText()).isEqualTo("turn/start");

        // Attempt 2 backs off up to 200 ms.
        calls.onError(second, overloaded());
        clock.advance(Duration.ofMillis(199));
        assertThat(sent).hasSize(2);
        clock.advance(Duration.ofMillis(1));
        assertThat(sent).hasSize(3);
        calls.onResult(lastId(), mapper.createObjectNode().put("ok", true));
        assertThat(f.join().get("ok").asBoolean()).isTrue();
    }

    @Test
    void anOverloadGivesUpAfterTheLastAttemptWithTheCountAndTheServersWords() {
        CompletableFuture<JsonNode> f = calls.call("turn/start", null, JsonNode.class, null);
        for (int attempt = 1; attempt <= 4; attempt++) {
            calls.onError(lastId(), overloaded());
            clock.advance(Duration.ofSeconds(1));
        }
        assertThat(sent).hasSize(4);
        assertThat(failure(f)).isInstanceOfSatisfying(CodexOverloadedException.class, e -> {
            assertThat(e.attempts()).isEqualTo(4);
            assertThat(e.code()).isEqualTo(CodexRpcException.SERVER_OVERLOADED);
            assertThat(e.serverMessage()).isEqualTo("Server overloaded; retry later.");
        });
    }

    @Test
    void noRetryStartsOnceTheTotalRetryTimeWouldBeExceeded() {
        calls = correlator(new RpcSettings(TIMEOUT, 10, Duration.ofMillis(100), Duration.ofSeconds(1),
                Duration.ofMillis(250)));
        CompletableFuture<JsonNode> f = calls.call("m", null, JsonNode.class, null);
        calls.onError(lastId(), overloaded());           // backoff 100 ms: 0 + 100 < 250
        clock.advance(Duration.ofMillis(100));
        calls.onError(lastId(), overloaded());           // backoff 200 ms: 100 + 200 ≥ 250
        assertThat(failure(f)).isInstanceOfSatisfying(CodexOverloadedException.class,
                e -> assertThat(e.attempts()).isEqualTo(2));
        assertThat(sent).hasSize(2);
    }

    @Test
    void theConnectionEndingFailsCallsInFlightAndCallsWaitingOutABackoff() {
        CompletableFuture<JsonNode> inFlight = calls.call("a", null, JsonNode.class, null);
        CompletableFuture<JsonNode> backingOff = calls.call("b", null, JsonNode.class, null);
        calls.onError(lastId(), overloaded());
        CodexTransportException cause = new CodexTransportException("codex exited", OptionalInt.of(3), "boom",
                null);

        assertThat(calls.fail(cause)).isTrue();
        assertThat(calls.fail(cause)).isFalse();

        assertThat(failure(inFlight)).isSameAs(cause);
        assertThat(failure(backingOff)).isSameAs(cause);
        assertThat(calls.pendingCount()).isZero();
        clock.advance(Duration.ofSeconds(1));
        assertThat(sent).hasSize(2);
        // A call after the end fails at once and says why the connection ended.
        assertThat(failure(calls.call("late", null, JsonNode.class, null)))
                .isInstanceOfSatisfying(CodexTransportException.class, e -> {
                    assertThat(e.getMessage()).contains("cannot send late").contains("codex exited");
                    assertThat(e.exitCode()).hasValue(3);
                });
    }

    @Test
    void cancellingTheCallersFutureForgetsTheRequest() {
        CompletableFuture<JsonNode> f = calls.call("m", null, JsonNode.class, null);
        assertThat(calls.pendingCount()).isEqualTo(1);
        f.cancel(true);
        assertThat(calls.pendingCount()).isZero();
    }

    @Test
    void aSendThatFailsFailsTheCallAndLeavesNothingPending() {
        failSends = true;
        CompletableFuture<JsonNode> f = calls.call("m", null, JsonNode.class, null);
        assertThat(failure(f)).isInstanceOf(CodexTransportException.class).hasMessageContaining("pipe broke");
        assertThat(calls.pendingCount()).isZero();
    }

    @Test
    void paramsThatDoNotSerialiseFailTheCallBeforeAnythingIsSent() {
        Object unserialisable = new Object() {
            @SuppressWarnings("unused")
            public Object getSelf() {
                return this;
            }
        };
        CompletableFuture<JsonNode> f = calls.call("m", unserialisable, JsonNode.class, null);
        assertThat(failure(f)).hasMessageContaining("could not serialise the params of m");
        assertThat(sent).isEmpty();
        assertThat(calls.pendingCount()).isZero();
    }

    @Test
    void errorsAndUndecodableResultsEndTheCallWithTypedRedactedExceptions() {
        CompletableFuture<JsonNode> rejected = calls.call("thread/start", null, JsonNode.class, null);
        JsonNode error = mapper.createObjectNode().put("code", -32602).put("message", "bad key sk-SECRET")
                .set("data", mapper.createObjectNode().put("k", 1));
        assertThat(calls.onError(lastId(), error)).isTrue();
        assertThat(failure(rejected)).isInstanceOfSatisfying(CodexRpcException.class, e -> {
            assertThat(e.code()).isEqualTo(-32602);
            assertThat(e.serverMessage()).isEqualTo("bad key [REDACTED]");
            assertThat(e.data()).hasValueSatisfying(d -> assertThat(d.get("k").asInt()).isEqualTo(1));
        });

        CompletableFuture<JsonNode> garbled = calls.call("m", null, JsonNode.class, null);
        assertThat(calls.onUndecodableResult(lastId(), "[\"sk-SECRET\"]", new IllegalStateException("x")))
                .isTrue();
        assertThat(failure(garbled)).isInstanceOf(CodexProtocolException.class)
                .hasMessageContaining("the result of m").hasMessageContaining("[REDACTED]")
                .hasMessageNotContaining("sk-SECRET");
        assertThat(calls.pendingCount()).isZero();
    }

    @Test
    void theDataOfAnErrorHasEveryStringRedactedAndKeepsItsShape() throws Exception {
        CompletableFuture<JsonNode> rejected = calls.call("account/login/start", null, JsonNode.class, null);
        JsonNode error = mapper.readTree("{\"code\":-32600,\"message\":\"rejected\",\"data\":{\"key\":\"sk-SECRET\","
                + "\"attempts\":[{\"sent\":\"Bearer sk-SECRET!\",\"n\":2}],\"ok\":false,\"none\":null}}");
        assertThat(calls.onError(lastId(), error)).isTrue();
        assertThat(failure(rejected)).isInstanceOfSatisfying(CodexRpcException.class,
                e -> assertThat(e.data()).hasValueSatisfying(d -> {
                    assertThat(d.toString()).doesNotContain("sk-SECRET");
                    assertThat(d.path("key").asText()).isEqualTo("[REDACTED]");
                    assertThat(d.path("attempts").get(0).path("sent").asText()).isEqualTo("Bearer [REDACTED]!");
                    assertThat(d.path("attempts").get(0).path("n").asInt()).isEqualTo(2);
                    assertThat(d.path("ok").isBoolean()).isTrue();
                    assertThat(d.has("none")).isTrue();
                }));
        assertThat(error.path("data").path("key").asText()).as("the wire message is left as it came")
                .isEqualTo("sk-SECRET");
    }

    @Test
    void anErrorIsRefinedBeforeItFailsItsCall() {
        RequestCorrelator refining = new RequestCorrelator(new RpcSettings(TIMEOUT, 1, Duration.ZERO, Duration.ZERO,
                Duration.ZERO), clock, new JsonWireCodec(mapper), bytes -> {
                    try {
                        sent.add(mapper.readTree(bytes));
                    } catch (java.io.IOException e) {
                        throw new AssertionError(e);
                    }
                }, Runnable::run, s -> s, bound -> bound, "test peer",
                e -> new CodexRpcException(e.method().orElse(null), e.code(), "refined: " + e.serverMessage(), null));
        CompletableFuture<JsonNode> f = refining.call("thread/revert", null, JsonNode.class, null);
        assertThat(refining.onError(lastId(), mapper.createObjectNode().put("code", -32600).put("message", "no")))
                .isTrue();
        assertThat(failure(f)).isInstanceOfSatisfying(CodexRpcException.class,
                e -> assertThat(e.serverMessage()).isEqualTo("refined: no"));
    }

    @Test
    void theResultTypeOfAPendingCallIsKnownUntilItIsAnswered() {
        calls.call("m", null, Integer.class, null);
        RequestId id = lastId();
        assertThat(calls.resultTypeOf(id)).isEqualTo(Integer.class);
        calls.onResult(id, 3);
        assertThat(calls.resultTypeOf(id)).isNull();
    }

    private JsonNode overloaded() {
        return mapper.createObjectNode().put("code", -32001).put("message", "Server overloaded; retry later.");
    }
}
