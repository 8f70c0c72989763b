package dev.codexclient.pool;

import static dev.codexclient.pool.PoolTestSupport.WAIT;
import static dev.codexclient.pool.PoolTestSupport.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.Codex;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.DynamicTool;
import dev.codexclient.Subscription;
import dev.codexclient.ThreadOptions;
import dev.codexclient.ToolResult;
import dev.codexclient.TurnResult;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.telemetry.ExtensionTelemetry;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.testkit.RecordedRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The pool has the client's face: code written against {@link Codex} and {@link CodexThread} runs on it; its
 * notification listeners hear every member, the later ones and the replacements included; it masks every member's
 * secrets; a thread's options (tools, approval policy) are its own on the member and again after a replacement;
 * a thread's listeners and subscribers follow it to its member's new client; integrations' telemetry reaches the
 * pool's listener.
 */
@Timeout(60)
class PoolFaceTest {
    private final FakeCodexAppServer fakeA = new FakeCodexAppServer();
    private final FakeCodexAppServer fakeB = new FakeCodexAppServer();
    private final AtomicInteger builtA = new AtomicInteger();

    @AfterEach
    void closeFakes() {
        fakeA.close();
        fakeB.close();
    }

    private static CodexClient client(FakeCodexAppServer fake, String secret) {
        return CodexClient.builder().transportFactory(fake::connectInMemory).experimentalApi(true)
                .secret(secret).requestTimeout(Duration.ofSeconds(10)).initializeTimeout(Duration.ofSeconds(10))
                .approvals(ApprovalPolicy.declineAll()).build();
    }

    private CodexClient clientA() {
        builtA.incrementAndGet();
        return client(fakeA, "sk-member-a-0123456789");
    }

    /** An application service that knows only the face. */
    private static TurnResult summarise(Codex codex, String cwd) {
        CodexThread thread = codex.startThread(ThreadStartParams.builder().cwd(cwd).build());
        return thread.startTurn("Summarise " + cwd).await(WAIT);
    }

    /** The member's client gives up: the next use of a thread of it replaces the client and resumes the thread. */
    private static void giveUp(CodexPool pool, String member) {
        pool.memberClient(member).orElseThrow().close();
    }

    @Test
    void aServiceWrittenAgainstTheFaceRunsOnAPool() {
        fakeA.onTurnStart(t -> t.agentMessage("a summary").completed());
        try (CodexPool pool = CodexPool.builder().member("a", this::clientA).build()) {
            TurnResult result = summarise(pool, "/work/repo");

            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(result.finalText()).isEqualTo("a summary");
            assertThat(fakeA.takeRequest("thread/start", WAIT).params().path("cwd").asText()).isEqualTo("/work/repo");
        }
    }

    @Test
    void notificationsOfEveryMemberReachThePoolsListenerReplacementsIncluded() throws Exception {
        fakeA.onTurnStart(t -> t.agentMessage("from a").completed());
        fakeB.onTurnStart(t -> t.agentMessage("from b").completed());
        List<String> completed = new CopyOnWriteArrayList<>();
        try (CodexPool pool = CodexPool.builder().member("a", this::clientA)
                .member("b", () -> client(fakeB, "sk-member-b-0123456789")).build()) {
            Subscription s = pool.onNotification(n -> {
                if (n instanceof ServerNotification.TurnCompleted c) {
                    completed.add(c.params().threadId());
                }
            });
            PooledThread onA = pool.startThread();
            PooledThread onB = pool.startThread();
            assertThat(List.of(onA.memberName(), onB.memberName())).containsExactly("a", "b");
            onA.startTurn("one").await(WAIT);
            onB.startTurn("two").await(WAIT);
            awaitCondition("both completions are heard", () -> completed.size() == 2);

            giveUp(pool, "a");
            TurnResult afterReplacement = onA.startTurn("three").await(WAIT);
            assertThat(builtA).hasValue(2);
            awaitCondition("the replacement's completion is heard", () -> completed.size() == 3);
            assertThat(completed).containsExactly(onA.id(), onB.id(), afterReplacement.threadId());

            s.close();
            onB.startTurn("four").await(WAIT);
            assertThat(completed).hasSize(3);
        }
    }

    @Test
    void thePoolMasksTheSecretsOfEveryMember() {
        try (CodexPool pool = CodexPool.builder().member("a", this::clientA)
                .member("b", () -> client(fakeB, "sk-member-b-0123456789")).build()) {
            String masked = pool.mask("a=sk-member-a-0123456789 b=sk-member-b-0123456789");
            assertThat(masked).doesNotContain("sk-member-a-0123456789").doesNotContain("sk-member-b-0123456789");
            assertThat(pool.mask(null)).isEmpty();
        }
    }

    record Ticket(String id) {
    }

    @Test
    void aThreadsOwnOptionsDecideOnItsMemberAndAgainAfterAReplacement() throws Exception {
        List<String> calls = new CopyOnWriteArrayList<>();
        DynamicTool lookup = DynamicTool.of("lookup_ticket", "Look up a ticket", Ticket.class, t -> {
            calls.add(t.id());
            return ToolResult.text("open");
        });
        ThreadOptions options = ThreadOptions.builder().tool(lookup)
                .approvals(ApprovalPolicy.always(ApprovalDecision.ACCEPT_FOR_SESSION)).build();
        try (CodexPool pool = CodexPool.builder().member("a", this::clientA).build()) {
            PooledThread thread = pool.startThread(ThreadStartParams.builder().build(), options);
            assertThat(fakeA.takeRequest("thread/start", WAIT).params().path("dynamicTools").toString())
                    .contains("lookup_ticket");
            assertThat(fakeA.requestCommandApproval(thread.id(), "turn-1", "make").awaitResponse(WAIT).decision())
                    .contains("acceptForSession");
            // Another thread of the same member has the client's policy.
            PooledThread plain = pool.startThread();
            assertThat(fakeA.requestCommandApproval(plain.id(), "turn-1", "make").awaitResponse(WAIT).decision())
                    .contains("decline");

            // The thread had a turn, so the member's new client resumes it, and its options come with it.
            fakeA.onTurnStart(t -> t.agentMessage("done").completed());
            thread.startTurn("first").await(WAIT);
            giveUp(pool, "a");
            thread.startTurn("after").await(WAIT);
            RecordedRequest resume = fakeA.takeRequest("thread/resume", WAIT);
            assertThat(resume.params().path("threadId").asText()).isEqualTo(thread.id());
            assertThat(fakeA.requestCommandApproval(thread.id(), "turn-2", "make").awaitResponse(WAIT).decision())
                    .contains("acceptForSession");
            assertThat(fakeA.requestToolCall(thread.id(), "turn-2", "lookup_ticket", new Ticket("T-1"))
                    .awaitResponse(WAIT).isError()).isFalse();
            assertThat(calls).containsExactly("T-1");
        }
    }

    @Test
    void aThreadsListenersAndSubscribersFollowItToItsMembersNewClient() throws Exception {
        fakeA.onTurnStart(t -> t.agentMessage("done").completed());
        try (CodexPool pool = CodexPool.builder().member("a", this::clientA).build()) {
            PooledThread thread = pool.startThread();
            List<String> heard = new CopyOnWriteArrayList<>();
            Subscription listening = thread.onEvent(n -> {
                if (n instanceof ServerNotification.TurnCompleted) {
                    heard.add("listener");
                }
            });
            Recording subscriber = new Recording();
            thread.publisher().subscribe(subscriber);
            subscriber.subscription.get(WAIT.toSeconds(), TimeUnit.SECONDS).request(Long.MAX_VALUE);

            thread.startTurn("before").await(WAIT);
            awaitCondition("the subscriber saw the first turn end", () -> subscriber.completedTurns.get() == 1);

            giveUp(pool, "a");
            thread.startTurn("after").await(WAIT);
            awaitCondition("the subscriber saw the second turn end", () -> subscriber.completedTurns.get() == 2);
            assertThat(heard).containsExactly("listener", "listener");
            assertThat(subscriber.ended).isNotDone();

            listening.close();
            thread.startTurn("unheard").await(WAIT);
            awaitCondition("the subscriber saw the third turn end", () -> subscriber.completedTurns.get() == 3);
            assertThat(heard).hasSize(2);

            // The thread ends for its client: the subscriber completes, as a client's does.
            thread.unsubscribe();
            assertThat(subscriber.ended.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isNull();
        }
    }

    @Test
    void aSubscriberOfAThreadWithoutAHandleCompletesWhenThePoolCloses() throws Exception {
        CodexPool pool = CodexPool.builder().member("a", this::clientA).build();
        PooledThread thread = pool.startThread();
        giveUp(pool, "a");
        Recording subscriber = new Recording();
        thread.publisher().subscribe(subscriber);
        subscriber.subscription.get(WAIT.toSeconds(), TimeUnit.SECONDS).request(1);
        assertThat(subscriber.ended).isNotDone();
        pool.close();
        assertThat(subscriber.ended.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isNull();
    }

    @Test
    void aForkIsAPooledThreadOnTheSameMemberWhoseTurnsTakeItsPlaces() {
        fakeA.onTurnStart(t -> t.agentMessage("done").completed());
        try (CodexPool pool = CodexPool.builder().member("a", this::clientA)
                .member("b", () -> client(fakeB, "sk-member-b-0123456789")).build()) {
            PooledThread source = pool.startThread();
            source.startTurn("first").await(WAIT);
            CodexThread fork = source.fork();

            assertThat(fork).isInstanceOfSatisfying(PooledThread.class, f -> {
                assertThat(f.memberName()).isEqualTo("a");
                assertThat(f.id()).isNotEqualTo(source.id());
            });
            assertThat(fork.startTurn("on the fork").await(WAIT).finalText()).isEqualTo("done");
            assertThat(pool.stats().get(0).threads()).isEqualTo(2);
        }
    }

    record Audited(String what) implements ExtensionTelemetry {
        @Override
        public String source() {
            return "audit";
        }
    }

    @Test
    void anIntegrationsTelemetryReachesThePoolsListener() {
        List<String> seen = new CopyOnWriteArrayList<>();
        try (CodexPool pool = CodexPool.builder().member("a", this::clientA)
                .telemetryListener(new CodexTelemetryListener() {
                    @Override
                    public void extensionTelemetry(ExtensionTelemetry report) {
                        seen.add(report.source() + ":" + ((Audited) report).what());
                    }
                }).build()) {
            Codex codex = pool;
            codex.publishTelemetry(new Audited("run started"));
            assertThat(seen).containsExactly("audit:run started");
        }
    }

    /** A subscriber that counts the turns it saw end and keeps how its stream ended. */
    private static final class Recording implements Flow.Subscriber<ServerNotification> {
        final CompletableFuture<Flow.Subscription> subscription = new CompletableFuture<>();
        final AtomicInteger completedTurns = new AtomicInteger();
        final CompletableFuture<Throwable> ended = new CompletableFuture<>();

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription.complete(s);
        }

        @Override
        public void onNext(ServerNotification item) {
            if (item instanceof ServerNotification.TurnCompleted) {
                completedTurns.incrementAndGet();
            }
        }

        @Override
        public void onError(Throwable failure) {
            ended.complete(failure);
        }

        @Override
        public void onComplete() {
            ended.complete(null);
        }
    }
}
