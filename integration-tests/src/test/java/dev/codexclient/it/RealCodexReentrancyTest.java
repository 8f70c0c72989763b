package dev.codexclient.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.Subscription;
import dev.codexclient.TurnResult;
import dev.codexclient.errors.CodexDeadlockException;
import dev.codexclient.ClientProbe;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.ModelStep;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Calling back into the client from listeners and handlers, and closing subscriptions, against the real codex
 * app-server driven offline by a scripted model. The fixture's request timeout is 30 s; a call that waited for
 * its own lane would hang that long, so every wait here is shorter.
 */
@Tag("real-codex")
@Timeout(120)
class RealCodexReentrancyTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @RegisterExtension
    final RealCodexFixture codex = new RealCodexFixture();

    @ParameterizedTest(name = "from a {0} listener")
    @EnumSource(ReentrancyTest.Listener.class)
    void aListenerStartsTheNextTurnWhenTheLastOneCompletes(ReentrancyTest.Listener where) throws Exception {
        int turns = 3;
        for (int i = 0; i < turns; i++) {
            codex.model.enqueue(ModelStep.reply("answer " + i));
        }
        ReentrancyTest.Chainer chain = new ReentrancyTest.Chainer(where, turns);
        try (CodexClient client = codex.client(b -> {
            if (where == ReentrancyTest.Listener.CLIENT) {
                b.onNotification(chain);
            }
        })) {
            chain.thread = client.startThread(codex.threadParams().build());
            Subscription threadListener = where == ReentrancyTest.Listener.THREAD ? chain.thread.onEvent(chain)
                    : () -> { };
            CodexTurn first = chain.thread.startTurn("turn 0");
            if (where == ReentrancyTest.Listener.TURN) {
                first.onEvent(chain);
            }
            try {
                chain.done.get(WAIT.toSeconds() * turns, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                throw new AssertionError("chaining failed after " + chain.completed.size() + " turns", e.getCause());
            } catch (TimeoutException e) {
                throw new AssertionError("chaining hangs after " + chain.completed.size() + " turns");
            }
            assertThat(chain.completed).hasSize(turns).doesNotHaveDuplicates();
            assertThat(chain.thread.read().turns()).hasSize(turns);
            threadListener.close();
            ClientTestSupport.awaitCondition("the client lets go of the thread", WAIT,
                    () -> ClientProbe.heldThreads(client) == 0);
        }
    }

    @Test
    void callsFromAListenerWorkAndWaitingForTheTurnOnItsOwnLaneFailsAtOnce() throws Exception {
        codex.model.enqueue(ModelStep.reply("first").withChunkSize(2), ModelStep.reply("second"));
        CompletableFuture<List<Object>> outcomes = new CompletableFuture<>();
        try (CodexClient client = codex.client(b -> { })) {
            CodexThread thread = client.startThread(codex.threadParams().build());
            CodexTurn turn = thread.startTurn("go");
            turn.onAgentMessageDelta(d -> {
                if (outcomes.isDone()) {
                    return;
                }
                List<Object> seen = new CopyOnWriteArrayList<>();
                try {
                    seen.add(thread.read().id());
                    thread.setName("named from a listener");
                    seen.add("named");
                    seen.add(client.startThread(codex.threadParams().build()).id());
                    try {
                        turn.await(Duration.ofMinutes(5));
                        seen.add("await returned");
                    } catch (CodexDeadlockException e) {
                        seen.add(e);
                    }
                    outcomes.complete(seen);
                } catch (RuntimeException e) {
                    outcomes.completeExceptionally(e);
                }
            });
            List<Object> seen = outcomes.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(seen).hasSize(4);
            assertThat(seen.get(0)).isEqualTo(thread.id());
            assertThat(seen.get(3)).isInstanceOf(CodexDeadlockException.class);
            assertThat(turn.await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(thread.read().name()).isEqualTo("named from a listener");
        }
    }

    @Test
    void callsFromAnApprovalHandlerWork() throws Exception {
        codex.model.enqueue(ModelStep.callTool("exec_command",
                Map.of("cmd", "printf 'x\\n' | tee approved.txt", "login", false)), ModelStep.reply("done"));
        CompletableFuture<CodexClient> clientRef = new CompletableFuture<>();
        CompletableFuture<CodexThread> threadRef = new CompletableFuture<>();
        CompletableFuture<List<String>> fromHandler = new CompletableFuture<>();
        try (CodexClient client = codex.client(b -> b.approvals(ApprovalPolicy.sync(request -> {
            try {
                CodexThread thread = threadRef.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                CodexClient self = clientRef.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                fromHandler.complete(List.of(thread.read().id(),
                        self.startThread(codex.threadParams().build()).id()));
            } catch (Exception e) {
                fromHandler.completeExceptionally(e);
            }
            return ApprovalDecision.ACCEPT;
        })))) {
            clientRef.complete(client);
            CodexThread thread = client.startThread(codex.threadParams().build());
            threadRef.complete(thread);
            TurnResult r = thread.startTurn("write a file").await(WAIT);
            assertThat(r.status()).isEqualTo(TurnStatus.COMPLETED);
            List<String> ids = fromHandler.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(ids.get(0)).isEqualTo(thread.id());
            assertThat(ids.get(1)).isNotEqualTo(thread.id());
        }
    }

    @Test
    void aSubscriptionClosedRightAwayReceivesNothing() throws Exception {
        codex.model.enqueue(ModelStep.reply("one two three four five six seven eight").withChunkSize(2));
        try (CodexClient client = codex.client(b -> { })) {
            CodexTurn turn = client.startThread(codex.threadParams().build()).startTurn("talk");
            List<ServerNotification> received = new CopyOnWriteArrayList<>();
            List<ServerNotification> control = new CopyOnWriteArrayList<>();
            // The lane is held meanwhile: the replay the first subscription would get runs after its close().
            Runnable release = SubscriptionTest.holdLane(turn.thread());
            turn.onEvent(received::add).close();
            turn.onEvent(control::add);
            release.run();
            assertThat(turn.await(WAIT).status()).isEqualTo(TurnStatus.COMPLETED);
            CompletableFuture<Void> drained = new CompletableFuture<>();
            ClientProbe.onLane(turn.thread(), () -> drained.complete(null));
            drained.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(control).hasSizeGreaterThan(5);
            assertThat(received).isEmpty();
        }
    }
}
