package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.awaitCondition;
import static dev.codexclient.it.ClientTestSupport.inMemory;
import static dev.codexclient.it.ClientTestSupport.inflightServerRequests;
import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.internal.rpc.CallbackPool;
import dev.codexclient.protocol.ToolRequestUserInputResponse;
import dev.codexclient.testkit.ClientReply;
import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.Fault;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.testkit.PendingServerRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Thousands of server requests in flight at once, every handler blocked: the handler threads stay under their
 * ceiling, the rest wait their turn and are answered, and what would release the blocked handlers (an event, the
 * server's withdrawal, the end of the connection) is still delivered.
 */
@ExtendWith(CodexTestExtension.class)
@Timeout(120)
class ServerRequestCeilingTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String TURN = "turn-1";
    /** Far more requests than handler threads. */
    private static final int REQUESTS = Math.max(3_000, 4 * CallbackPool.HANDLER_THREADS);

    @Test
    void handlersBlockedUntilAnEventAreAllAnsweredWithinTheCeiling(FakeCodexAppServer fake) {
        CountDownLatch turnOver = new CountDownLatch(1);
        AtomicInteger deciding = new AtomicInteger();
        try (CodexClient client = inMemory(fake)
                // A person decides each approval, and walks away once the turn is over.
                .approvals(ApprovalPolicy.sync(request -> {
                    deciding.incrementAndGet();
                    turnOver.await();
                    return ApprovalDecision.ACCEPT;
                }))
                .onNotification(n -> {
                    if (n.method().equals("turn/completed")) {
                        turnOver.countDown();
                    }
                })
                .build()) {
            String threadId = client.startThread().id();
            List<PendingServerRequest> approvals = new ArrayList<>();
            for (int i = 0; i < REQUESTS; i++) {
                approvals.add(fake.requestCommandApproval(threadId, TURN, "make test-" + i));
            }
            awaitCondition("every handler thread decides", WAIT,
                    () -> deciding.get() >= CallbackPool.HANDLER_THREADS);
            // All of them block; the other requests wait for a thread instead of starting one each.
            assertThat(deciding.get()).isEqualTo(CallbackPool.HANDLER_THREADS);
            assertThat(CallbackPool.handlerThreads()).isEqualTo(CallbackPool.HANDLER_THREADS);
            // Counted by name, as the leak checks do, too.
            SharedThreadCeilings.assertWithinCeilings();
            assertThat(approvals).noneMatch(PendingServerRequest::isAnswered);

            // The event that releases them is delivered although every handler thread is blocked.
            fake.notify("turn/completed", Map.of("threadId", threadId,
                    "turn", Map.of("id", TURN, "items", List.of(), "status", "completed")));

            for (PendingServerRequest approval : approvals) {
                assertThat(approval.awaitResponse(WAIT).decision()).as(approval.toString()).contains("accept");
            }
            assertThat(deciding.get()).isEqualTo(REQUESTS);
            assertThat(inflightServerRequests(client)).isZero();
        }
        assertThat(CallbackPool.peakHandlerThreads()).isLessThanOrEqualTo(CallbackPool.HANDLER_THREADS);
        assertThat(CallbackPool.peakCallbackThreads()).isLessThanOrEqualTo(CallbackPool.CALLBACK_THREADS);
    }

    @Test
    void handlersBlockedAtTheCeilingAreWithdrawnAndTheWaitingOnesNeverRun(FakeCodexAppServer fake) {
        AtomicInteger deciding = new AtomicInteger();
        AtomicInteger interrupted = new AtomicInteger();
        try (CodexClient client = inMemory(fake)
                .approvals(ApprovalPolicy.sync(request -> {
                    deciding.incrementAndGet();
                    try {
                        new CountDownLatch(1).await();
                    } catch (InterruptedException e) {
                        interrupted.incrementAndGet();
                        throw e;
                    }
                    return ApprovalDecision.ACCEPT;
                }))
                .build()) {
            String threadId = client.startThread().id();
            List<PendingServerRequest> approvals = new ArrayList<>();
            for (int i = 0; i < REQUESTS; i++) {
                approvals.add(fake.requestCommandApproval(threadId, TURN, "make test-" + i));
            }
            awaitCondition("every handler thread decides", WAIT,
                    () -> deciding.get() >= CallbackPool.HANDLER_THREADS);
            assertThat(CallbackPool.handlerThreads()).isEqualTo(CallbackPool.HANDLER_THREADS);
            // Counted by name, as the leak checks do, too.
            SharedThreadCeilings.assertWithinCeilings();

            // codex settles them elsewhere (another client answered, the turn ended): each one is withdrawn.
            approvals.forEach(PendingServerRequest::resolve);

            awaitCondition("every request is withdrawn", WAIT, () -> inflightServerRequests(client) == 0);
            awaitCondition("every decision that began is interrupted", WAIT,
                    () -> interrupted.get() == deciding.get());
            // A withdrawn request's decision that was still waiting for a thread never began.
            assertThat(deciding.get()).isLessThan(REQUESTS);
            // Withdrawn requests get no reply; the connection serves the next request at once.
            ClientReply time = fake.sendRequest("currentTime/read", Map.of("threadId", threadId)).awaitResponse(WAIT);
            assertThat(time.isError()).isFalse();
            assertThat(approvals).noneMatch(PendingServerRequest::isAnswered);
        }
        assertThat(CallbackPool.peakHandlerThreads()).isLessThanOrEqualTo(CallbackPool.HANDLER_THREADS);
    }

    @Test
    void handlersBlockedOnATurnAreReleasedWhenTheConnectionIsLost(FakeCodexAppServer fake) {
        fake.onTurnStart(turn -> turn.agentMessage("working").pause(Duration.ofMinutes(5)).completed());
        AtomicInteger waiting = new AtomicInteger();
        AtomicInteger released = new AtomicInteger();
        CompletableFuture<CodexTurn> running = new CompletableFuture<>();
        try (CodexClient client = inMemory(fake)
                // Each handler blocks until the turn ends (a handler that no cancellation interrupts): only the
                // turn's failure, delivered on the callback threads, lets it go.
                .userInput(question -> {
                    waiting.incrementAndGet();
                    running.join().result().handle((r, e) -> null).join();
                    released.incrementAndGet();
                    return CompletableFuture.completedFuture(ToolRequestUserInputResponse.builder()
                            .answers(Map.of()).build());
                })
                .build()) {
            CodexThread thread = client.startThread();
            String threadId = thread.id();
            running.complete(thread.startTurn("work"));
            for (int i = 0; i < REQUESTS; i++) {
                fake.requestUserInput(threadId, TURN, "q" + i, "Continue?");
            }
            awaitCondition("every handler thread waits for the turn", WAIT,
                    () -> waiting.get() >= CallbackPool.HANDLER_THREADS);
            assertThat(CallbackPool.handlerThreads()).isEqualTo(CallbackPool.HANDLER_THREADS);
            // Counted by name, as the leak checks do, too.
            SharedThreadCeilings.assertWithinCeilings();

            fake.apply(Fault.exit(1));

            // The turn fails, its waiters return, and the handlers still queued then find their requests gone.
            awaitCondition("the handlers that waited are released", WAIT, () -> released.get() == waiting.get());
            assertThat(running.join().result()).isCompletedExceptionally();
            assertThat(inflightServerRequests(client)).isZero();
        }
        assertThat(CallbackPool.peakHandlerThreads()).isLessThanOrEqualTo(CallbackPool.HANDLER_THREADS);
    }
}
