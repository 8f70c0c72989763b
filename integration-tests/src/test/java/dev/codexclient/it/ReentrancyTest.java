package dev.codexclient.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.codexclient.CodexClientBuilder;
import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.DynamicTool;
import dev.codexclient.Subscription;
import dev.codexclient.ToolResult;
import dev.codexclient.TurnEventStream;
import dev.codexclient.errors.CodexDeadlockException;
import dev.codexclient.ClientProbe;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.testkit.TurnScript;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Calling back into the client from every place it runs user code: each public call either works there or fails
 * at once with {@link CodexDeadlockException} where it truly cannot (waiting for a turn on the lane that delivers
 * that turn's events). Nothing may hang: every case must finish well within the request timeout.
 */
@Timeout(60)
class ReentrancyTest {
    /** Far below the request timeout, so a call that waits for its own lane shows up as a hang, not as a timeout. */
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);
    /** How long the fake keeps a turn running unless it is interrupted. */
    private static final Duration HELD = Duration.ofSeconds(45);

    /** Where the client runs user code. */
    enum Place {
        TURN_LISTENER, THREAD_LISTENER, CLIENT_LISTENER, APPROVAL_HANDLER, TOOL_HANDLER, SERVER_REQUEST_HANDLER,
        FUTURE_DEPENDENT;

        /** Whether code here runs on the delivery lane of the thread whose turn it handles. */
        boolean onTheTurnsLane() {
            return this == TURN_LISTENER || this == THREAD_LISTENER || this == CLIENT_LISTENER;
        }
    }

    /** What the code in a place works with: a running turn on {@code thread}, another on {@code other}. */
    record Scene(CodexClient client, CodexThread thread, CodexTurn turn, CodexThread spare, CodexTurn otherTurn) {
    }

    @FunctionalInterface
    interface Code {
        Object run(Scene scene) throws Exception;
    }

    /** Every public call, as user code makes it. */
    enum Call {
        START_THREAD(s -> s.client().startThread().id()),
        RESUME_THREAD(s -> s.client().resumeThread(s.spare().id()).id()),
        FORK_THREAD(s -> s.thread().fork().id()),
        READ(s -> s.thread().read().id()),
        SET_NAME(s -> {
            s.thread().setName("renamed from inside");
            return "named";
        }),
        ARCHIVE(s -> {
            s.spare().archive();
            return "archived";
        }),
        START_TURN(s -> s.spare().startTurn("next").id()),
        START_TURN_ASYNC(s -> s.spare().startTurnAsync("next").get(WAIT.toSeconds(), TimeUnit.SECONDS).id()),
        STEER(s -> s.turn().steerAsync("more").get(WAIT.toSeconds(), TimeUnit.SECONDS).turnId()),
        INTERRUPT(s -> {
            s.turn().interruptAsync();
            return "interrupting";
        }),
        AWAIT_ANOTHER_THREADS_TURN(s -> {
            s.otherTurn().interruptAsync();
            return s.otherTurn().await(WAIT).status();
        }),
        AWAIT_OWN_TURN(s -> {
            s.turn().interruptAsync();
            return s.turn().await(WAIT).status();
        }),
        JOIN_OWN_RESULT(s -> {
            s.turn().interruptAsync();
            return s.turn().result().join().status();
        }),
        ITERATE_OWN_EVENTS(s -> {
            s.turn().interruptAsync();
            try (TurnEventStream events = s.turn().events(WAIT)) {
                int n = 0;
                for (ServerNotification e : events) {
                    n++;
                }
                return n;
            }
        }),
        CLOSE(s -> {
            s.client().close();
            return s.client().isClosed();
        });

        final Code code;

        Call(Code code) {
            this.code = code;
        }

        /** Waiting for the turn whose event is being delivered, on the lane delivering it: it can never end. */
        boolean waitsForOwnTurn() {
            return this == AWAIT_OWN_TURN || this == JOIN_OWN_RESULT || this == ITERATE_OWN_EVENTS;
        }
    }

    static Stream<Arguments> everyCallFromEveryPlace() {
        return Stream.of(Place.values()).flatMap(p -> Stream.of(Call.values()).map(c -> Arguments.of(p, c)));
    }

    @ParameterizedTest(name = "{1} from a {0}")
    @MethodSource("everyCallFromEveryPlace")
    void everyCallWorksOrFailsAtOnceFromEveryPlace(Place place, Call call) throws Exception {
        CompletableFuture<Object> outcome = new CompletableFuture<>();
        // The scene without its turn, then the turn: a place may run before startTurn has returned.
        CompletableFuture<Scene> setting = new CompletableFuture<>();
        CompletableFuture<CodexTurn> turnRef = new CompletableFuture<>();
        AtomicBoolean fired = new AtomicBoolean();
        Runnable here = () -> {
            if (!fired.compareAndSet(false, true)) {
                return;
            }
            try {
                Scene s = setting.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                CodexTurn turn = turnRef.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                outcome.complete(call.code.run(new Scene(s.client(), s.thread(), turn, s.spare(), s.otherTurn())));
            } catch (Throwable t) {
                outcome.completeExceptionally(t);
            }
        };
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart((request, turn) -> script(place, request.params().path("input").path(0)
                    .path("text").asText(), turn));
            CodexClientBuilder b = ClientTestSupport.inMemory(fake).requestTimeout(REQUEST_TIMEOUT);
            switch (place) {
                case APPROVAL_HANDLER -> b.approvals(ApprovalPolicy.sync(request -> {
                    here.run();
                    return ApprovalDecision.DECLINE;
                }));
                case TOOL_HANDLER -> b.experimentalApi(true).tool(DynamicTool.ofJson("probe", "a probe",
                        JsonNodeFactory.instance.objectNode().put("type", "object"), args -> {
                            here.run();
                            return ToolResult.text("probed");
                        }));
                case SERVER_REQUEST_HANDLER -> b.unknownServerRequest("probe/ask", params -> {
                    here.run();
                    return CompletableFuture.completedFuture(Map.of("ok", true));
                });
                case CLIENT_LISTENER -> b.onNotification(n -> {
                    if (n instanceof ServerNotification.ItemAgentMessageDelta d
                            && d.params().delta().equals("trigger")) {
                        here.run();
                    }
                });
                default -> { }
            }
            CodexClient client = b.build();
            try {
                CodexThread spare = client.startThread();
                CodexTurn otherTurn = client.startThread().startTurn("hold");
                CodexThread thread = client.startThread();
                setting.complete(new Scene(client, thread, null, spare, otherTurn));
                if (place == Place.THREAD_LISTENER) {
                    thread.onEvent(n -> {
                        if (n instanceof ServerNotification.ItemAgentMessageDelta) {
                            here.run();
                        }
                    });
                }
                CodexTurn turn;
                if (place == Place.FUTURE_DEPENDENT) {
                    CompletableFuture<CodexTurn> started = thread.startTurnAsync("go");
                    started.thenAccept(t -> {
                        turnRef.complete(t);
                        here.run();
                    });
                    turn = started.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                } else {
                    turn = thread.startTurn("go");
                }
                if (place == Place.TURN_LISTENER) {
                    turn.onEvent(n -> {
                        if (n instanceof ServerNotification.ItemAgentMessageDelta) {
                            here.run();
                        }
                    });
                }
                turnRef.complete(turn);

                Object result;
                try {
                    result = outcome.get(WAIT.toSeconds() + 5, TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    throw new AssertionError(call + " from a " + place + " did not return within " + WAIT
                            + " (the request timeout is " + REQUEST_TIMEOUT + "): it hangs there");
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    if (place.onTheTurnsLane() && call.waitsForOwnTurn()) {
                        assertThat(cause).isInstanceOf(CodexDeadlockException.class)
                                .hasMessageContaining(thread.id());
                        return;
                    }
                    if (place == Place.APPROVAL_HANDLER && call.waitsForOwnTurn()
                            && cause.getCause() instanceof InterruptedException) {
                        // The turn's end withdraws the approval it was waiting on, and ApprovalPolicy.sync
                        // interrupts the thread of a withdrawn decision: the wait ends there instead of hanging.
                        return;
                    }
                    throw new AssertionError(call + " from a " + place + " failed", cause);
                }
                assertThat(place.onTheTurnsLane() && call.waitsForOwnTurn())
                        .as("%s from a %s must fail at once, but returned %s", call, place, result).isFalse();
                assertThat(result).isNotNull();
            } finally {
                client.close();
            }
        }
    }

    private static void script(Place place, String input, TurnScript turn) {
        switch (input) {
            case "hold" -> turn.pause(HELD).interrupted();
            case "next" -> turn.agentMessage("next turn").completed();
            default -> {
                switch (place) {
                    case APPROVAL_HANDLER -> turn.commandApproval("touch probe", reply -> { });
                    case TOOL_HANDLER -> turn.toolCall("probe", Map.of(), reply -> { });
                    case SERVER_REQUEST_HANDLER -> turn.serverRequest("probe/ask", Map.of(), reply -> { });
                    default -> turn.agentMessageDeltas("trigger");
                }
                turn.pause(HELD).interrupted();
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ chaining

    /** Where a listener that chains turns is registered. */
    enum Listener { TURN, THREAD, CLIENT }

    /** Starts the next turn, blocking, from the listener that sees the last one complete. */
    static final class Chainer implements java.util.function.Consumer<ServerNotification> {
        final Listener where;
        final int turns;
        final List<String> completed = new CopyOnWriteArrayList<>();
        final CompletableFuture<Void> done = new CompletableFuture<>();
        volatile CodexThread thread;

        Chainer(Listener where, int turns) {
            this.where = where;
            this.turns = turns;
        }

        @Override
        public void accept(ServerNotification n) {
            if (!(n instanceof ServerNotification.TurnCompleted c)) {
                return;
            }
            completed.add(c.params().turn().id());
            if (completed.size() == turns) {
                done.complete(null);
                return;
            }
            try {
                // The natural code: start the next turn right here.
                CodexTurn next = thread.startTurn("turn " + completed.size());
                if (where == Listener.TURN) {
                    next.onEvent(this);
                }
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
            }
        }
    }

    @ParameterizedTest(name = "from a {0} listener")
    @EnumSource(Listener.class)
    void aListenerStartsTheNextTurnWhenTheLastOneCompletes(Listener where) throws Exception {
        Chainer chain = new Chainer(where, 20);
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessage("ok").completed());
            CodexClientBuilder b = ClientTestSupport.inMemory(fake).requestTimeout(REQUEST_TIMEOUT);
            if (where == Listener.CLIENT) {
                b.onNotification(chain);
            }
            try (CodexClient client = b.build()) {
                chain.thread = client.startThread();
                Subscription threadListener = where == Listener.THREAD ? chain.thread.onEvent(chain) : () -> { };
                CodexTurn first = chain.thread.startTurn("turn 0");
                if (where == Listener.TURN) {
                    first.onEvent(chain);
                }
                try {
                    chain.done.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    throw new AssertionError("chaining failed after " + chain.completed.size() + " turns",
                            e.getCause());
                } catch (TimeoutException e) {
                    throw new AssertionError("chaining hangs after " + chain.completed.size() + " turns");
                }
                assertThat(chain.completed).hasSize(20).doesNotHaveDuplicates();
                threadListener.close();
                // Nothing is left behind: no turn still starting, no held thread, no lane.
                ClientTestSupport.awaitCondition("the client lets go of the thread and its lane",
                        () -> ClientProbe.heldThreads(client) == 0 && ClientProbe.lanes(client) == 0);
            }
        }
    }

    @Test
    void aTurnAwaitedOnItsOwnLaneFailsAtOnceAndSaysWhatToDoInstead() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessageDeltas("a", "b").pause(HELD).interrupted());
            try (CodexClient client = ClientTestSupport.inMemory(fake).requestTimeout(REQUEST_TIMEOUT).build()) {
                CodexTurn turn = client.startThread().startTurn("go");
                CompletableFuture<Throwable> failure = new CompletableFuture<>();
                turn.onAgentMessageDelta(d -> {
                    try {
                        turn.await(Duration.ofDays(1));
                        failure.complete(null);
                    } catch (Throwable t) {
                        failure.complete(t);
                    }
                });
                assertThat(failure.get(WAIT.toSeconds(), TimeUnit.SECONDS))
                        .isInstanceOf(CodexDeadlockException.class)
                        .hasMessageContaining("turn.await()")
                        .hasMessageContaining("turn.result().thenAccept");
                turn.interruptAsync();
            }
        }
    }
}
