package dev.codexclient.internal.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SystemSchedulerTest {
    private static final long WAIT_SECONDS = 30;

    @Test
    void schedulersShareOneTimerThread() throws Exception {
        SystemScheduler a = new SystemScheduler();
        SystemScheduler b = new SystemScheduler();
        CompletableFuture<Thread> ranA = new CompletableFuture<>();
        CompletableFuture<Thread> ranB = new CompletableFuture<>();
        a.schedule(() -> ranA.complete(Thread.currentThread()), 0);
        b.schedule(() -> ranB.complete(Thread.currentThread()), 0);

        Thread first = ranA.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(first.getName()).isEqualTo("codex-shared-timer");
        assertThat(first.isDaemon()).isTrue();
        assertThat(ranB.get(WAIT_SECONDS, TimeUnit.SECONDS)).isSameAs(first);
    }

    @Test
    void shutdownCancelsOnlyItsOwnTasksAndRejectsNewOnes() throws Exception {
        SystemScheduler closing = new SystemScheduler();
        SystemScheduler other = new SystemScheduler();
        CompletableFuture<String> late = new CompletableFuture<>();
        closing.schedule(() -> late.complete("ran after shutdown"), Duration.ofHours(1));
        other.schedule(() -> { }, Duration.ofHours(1));
        assertThat(closing.pendingTasks()).isEqualTo(1);

        closing.shutdown();

        assertThat(closing.isShutdown()).isTrue();
        assertThat(closing.pendingTasks()).isZero();
        assertThat(other.isShutdown()).isFalse();
        assertThat(other.pendingTasks()).isEqualTo(1);
        assertThatThrownBy(() -> closing.schedule(() -> { }, 0)).isInstanceOf(RejectedExecutionException.class);
        // The other scheduler's timers still run.
        CompletableFuture<String> ran = new CompletableFuture<>();
        other.schedule(() -> ran.complete("ran"), 0);
        assertThat(ran.get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("ran");
        assertThat(late).isNotDone();
        other.shutdown();
    }

    @Test
    void aCancelledTaskNeverRunsAndCancelsOnce() throws Exception {
        SystemScheduler scheduler = new SystemScheduler();
        CompletableFuture<String> cancelled = new CompletableFuture<>();
        Scheduler.Task task = scheduler.schedule(() -> cancelled.complete("ran"), Duration.ofHours(1));

        assertThat(task.cancel()).isTrue();
        assertThat(task.cancel()).isFalse();
        assertThat(scheduler.pendingTasks()).isZero();
        assertThat(cancelled).isNotDone();
    }

    @Test
    void aFailingTaskLeavesTheTimerRunning() throws Exception {
        SystemScheduler scheduler = new SystemScheduler();
        scheduler.schedule(() -> {
            throw new IllegalStateException("a task's own failure");
        }, 0);
        CompletableFuture<String> after = new CompletableFuture<>();
        scheduler.schedule(() -> after.complete("ran"), 0);

        assertThat(after.get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("ran");
        assertThat(scheduler.pendingTasks()).isZero();
    }
}
