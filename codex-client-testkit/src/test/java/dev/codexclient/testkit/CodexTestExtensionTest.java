package dev.codexclient.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.codexclient.internal.SharedThreadCeilings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/** Runs small test classes through the JUnit launcher to see what the extension does to them. */
class CodexTestExtensionTest {

    private static TestExecutionSummary run(Class<?> testClass) {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(testClass)).build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        launcher.execute(request, listener);
        return listener.getSummary();
    }

    private static String failureMessages(TestExecutionSummary summary) {
        return summary.getFailures().stream().map(f -> String.valueOf(f.getException().getMessage())).toList()
                .toString();
    }

    @Test
    void injectsAFreshFakeAndPassesACleanTest() {
        TestExecutionSummary summary = run(CleanCase.class);
        assertThat(summary.getTestsSucceededCount()).as(failureMessages(summary)).isEqualTo(2);
        assertThat(CleanCase.seen).hasSize(2);
        assertThat(CleanCase.seen.get(0)).isNotSameAs(CleanCase.seen.get(1));
        assertThat(CleanCase.seen).allSatisfy(f -> assertThat(f.isClosed()).isTrue());
    }

    @Test
    void failsATestThatLeaksAThread() {
        TestExecutionSummary summary = run(LeakingThreadCase.class);
        LeakingThreadCase.release.countDown();
        assertThat(summary.getTestsFailedCount()).isEqualTo(1);
        assertThat(failureMessages(summary)).contains("leaked").contains("codex-leaky-worker");
    }

    @Test
    void theSharedPoolsThreadsAreNotLeaks() {
        TestExecutionSummary summary = run(SharedPoolThreadCase.class);
        SharedPoolThreadCase.release.countDown();
        assertThat(summary.getTestsSucceededCount()).as(failureMessages(summary)).isEqualTo(1);
    }

    @Test
    void aThreadNamedLikeASharedPoolsButOfNoneIsALeak() {
        TestExecutionSummary summary = run(UnknownSharedThreadCase.class);
        UnknownSharedThreadCase.release.countDown();
        assertThat(summary.getTestsFailedCount()).isEqualTo(1);
        assertThat(failureMessages(summary)).contains("leaked").contains("codex-shared-something-else");
    }

    @Test
    void aSharedPoolOverItsCeilingFailsTheTest() {
        TestExecutionSummary summary = run(SharedPoolOverItsCeilingCase.class);
        SharedPoolOverItsCeilingCase.release.countDown();
        assertThat(summary.getTestsFailedCount()).isEqualTo(1);
        assertThat(failureMessages(summary)).contains("threads codex-shared-handler-*, more than the shared pool's"
                + " ceiling of " + SharedThreadCeilings.handlers());
    }

    @Test
    void failsATestThatLeaksAChildProcess() {
        TestExecutionSummary summary = run(LeakingChildCase.class);
        LeakingChildCase.child.destroyForcibly();
        assertThat(summary.getTestsFailedCount()).isEqualTo(1);
        assertThat(failureMessages(summary)).contains("child process " + LeakingChildCase.child.pid());
    }

    @Test
    void failsATestWhoseFakeRecordedAFailure() {
        TestExecutionSummary summary = run(FailingCallbackCase.class);
        assertThat(summary.getTestsFailedCount()).isEqualTo(1);
        assertThat(failureMessages(summary)).contains("failure(s)");
    }

    @Test
    void theFakeCanBeGivenOtherSettingsThroughAResourceFactory() {
        TestExecutionSummary summary = run(UnrecordedFakeCase.class);
        assertThat(summary.getTestsSucceededCount()).as(failureMessages(summary)).isEqualTo(1);
        assertThat(UnrecordedFakeCase.seen.recording()).isEqualTo(Recording.off());
        assertThat(UnrecordedFakeCase.seen.isClosed()).isTrue();
    }

    @Test
    void extraResourcesAreInjectedAndClosed() {
        TestExecutionSummary summary = run(ResourceCase.class);
        assertThat(summary.getTestsSucceededCount()).as(failureMessages(summary)).isEqualTo(1);
        assertThat(ResourceCase.resource.closed).isTrue();
    }

    // ---- the cases; nested classes are not picked up by the build's own test run

    @ExtendWith(CodexTestExtension.class)
    static class CleanCase {
        static final List<FakeCodexAppServer> seen = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Test
        void one(FakeCodexAppServer fake) throws Exception {
            seen.add(fake);
            try (RawClient c = RawClient.inMemory(fake)) {
                c.initialize();
                c.startThread();
            }
        }

        @Test
        void twoOverAChild(FakeCodexAppServer fake) throws Exception {
            seen.add(fake);
            try (RawClient c = RawClient.child(fake.childProcessCommand())) {
                c.initialize();
            }
        }
    }

    static class LeakingThreadCase {
        static final CountDownLatch release = new CountDownLatch(1);

        @RegisterExtension
        final CodexTestExtension codex = CodexTestExtension.builder().leakGracePeriod(Duration.ofMillis(200))
                .build();

        @Test
        void leaks() {
            startDaemonUntil(release, "codex-leaky-worker");
        }
    }

    /** A thread of a JVM-wide pool outlives the test that started it, as the timer and the fakes' workers do. */
    static class SharedPoolThreadCase {
        static final CountDownLatch release = new CountDownLatch(1);

        @RegisterExtension
        final CodexTestExtension codex = CodexTestExtension.builder().leakGracePeriod(Duration.ofMillis(200))
                .build();

        @Test
        void startsASharedThread(FakeCodexAppServer fake) throws Exception {
            try (RawClient c = RawClient.inMemory(fake)) {
                c.initialize();
            }
            startDaemonUntil(release, "codex-shared-callback-of-a-test");
        }
    }

    /** A pool that is not one of the JVM-wide ones does not pass for one by its name. */
    static class UnknownSharedThreadCase {
        static final CountDownLatch release = new CountDownLatch(1);

        @RegisterExtension
        final CodexTestExtension codex = CodexTestExtension.builder().leakGracePeriod(Duration.ofMillis(200))
                .build();

        @Test
        void startsAThreadNamedLikeASharedOne() {
            startDaemonUntil(release, "codex-shared-something-else");
        }
    }

    /** More threads of a shared pool than its ceiling allows. */
    static class SharedPoolOverItsCeilingCase {
        static final CountDownLatch release = new CountDownLatch(1);

        @RegisterExtension
        final CodexTestExtension codex = CodexTestExtension.builder().leakGracePeriod(Duration.ofMillis(200))
                .build();

        @Test
        void startsOneHandlerThreadTooMany() {
            for (int i = 0; i <= SharedThreadCeilings.handlers(); i++) {
                startDaemonUntil(release, "codex-shared-handler-of-a-test-" + i);
            }
        }
    }

    /** Starts a daemon thread named {@code name} that lives until {@code release} opens. */
    static void startDaemonUntil(CountDownLatch release, String name) {
        Thread t = new Thread(() -> {
            try {
                release.await();
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
        }, name);
        t.setDaemon(true);
        t.start();
    }

    static class LeakingChildCase {
        static volatile Process child;

        @RegisterExtension
        final CodexTestExtension codex = CodexTestExtension.builder().leakGracePeriod(Duration.ofMillis(200))
                .build();

        @Test
        void leaks() throws Exception {
            child = new ProcessBuilder(List.of("sleep", "30")).start();
        }
    }

    @ExtendWith(CodexTestExtension.class)
    static class FailingCallbackCase {
        @Test
        void callbackAssertionFails(FakeCodexAppServer fake) {
            fake.onTurnStart(turn -> turn.toolCall("t", Map.of(), reply -> {
                throw new AssertionError("wrong tool result");
            }));
            try (RawClient c = RawClient.inMemory(fake)) {
                c.initialize();
                String threadId = c.startThread();
                c.result("turn/start", Map.of("threadId", threadId, "input", List.of()));
                var call = c.serverRequest("item/tool/call");
                c.send(dev.codexclient.testkit.internal.fake.Json.parseUnchecked(
                        "{\"id\":" + call.path("id") + ",\"result\":{\"success\":true,\"contentItems\":[]}}"));
                c.notification("turn/completed");
            }
        }
    }

    /** A stand-in for another per-test resource, such as a scripted model server. */
    static final class Resource implements AutoCloseable {
        volatile boolean closed;

        @Override
        public void close() {
            closed = true;
        }
    }

    static class ResourceCase {
        static volatile Resource resource;

        @RegisterExtension
        final CodexTestExtension codex = CodexTestExtension.builder()
                .resource(Resource.class, ctx -> new Resource()).build();

        @Test
        void usesIt(Resource r, FakeCodexAppServer fake) {
            resource = r;
            assertThat(codex.fake()).isSameAs(fake);
        }
    }

    static class UnrecordedFakeCase {
        static volatile FakeCodexAppServer seen;

        @RegisterExtension
        final CodexTestExtension codex = CodexTestExtension.builder()
                .resource(FakeCodexAppServer.class,
                        ctx -> FakeCodexAppServer.builder().recording(Recording.off()).build())
                .build();

        @Test
        void usesIt(FakeCodexAppServer fake) {
            seen = fake;
            assertThat(codex.fake()).isSameAs(fake);
        }
    }
}
