package dev.codexclient.internal.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;

class ManualSchedulerTest {
    private final ManualScheduler clock = new ManualScheduler();

    @Test
    void tasksRunInDeadlineOrderAtTheirOwnTime() {
        List<String> ran = new ArrayList<>();
        long start = clock.nanoTime();
        clock.schedule(() -> ran.add("b@" + (clock.nanoTime() - start)), Duration.ofMillis(20));
        clock.schedule(() -> ran.add("a@" + (clock.nanoTime() - start)), Duration.ofMillis(10));
        clock.schedule(() -> ran.add("c@" + (clock.nanoTime() - start)), Duration.ofMillis(20));

        clock.advance(Duration.ofMillis(10).minusNanos(1));
        assertThat(ran).isEmpty();
        clock.advance(Duration.ofNanos(1));
        assertThat(ran).containsExactly("a@10000000");
        clock.advance(Duration.ofSeconds(1));
        assertThat(ran).containsExactly("a@10000000", "b@20000000", "c@20000000");
        assertThat(clock.nanoTime() - start).isEqualTo(Duration.ofMillis(1010).toNanos());
    }

    @Test
    void tasksScheduledByTasksRunWithinTheSameAdvance() {
        List<Long> ran = new ArrayList<>();
        long start = clock.nanoTime();
        clock.schedule(() -> {
            ran.add(clock.nanoTime() - start);
            clock.schedule(() -> ran.add(clock.nanoTime() - start), Duration.ofMillis(5));
        }, Duration.ofMillis(5));
        clock.advance(Duration.ofMillis(12));
        assertThat(ran).containsExactly(5_000_000L, 10_000_000L);
        assertThat(clock.pendingTasks()).isZero();
    }

    @Test
    void cancelledTasksNeverRunAndShutdownRejectsNewOnes() {
        List<String> ran = new ArrayList<>();
        Scheduler.Task t = clock.schedule(() -> ran.add("x"), Duration.ofMillis(1));
        assertThat(clock.nextDelay()).hasValue(Duration.ofMillis(1));
        assertThat(t.cancel()).isTrue();
        assertThat(t.cancel()).isFalse();
        clock.advance(Duration.ofSeconds(1));
        assertThat(ran).isEmpty();
        clock.shutdown();
        assertThat(clock.isShutdown()).isTrue();
        assertThatThrownBy(() -> clock.schedule(() -> { }, 0)).isInstanceOf(RejectedExecutionException.class);
    }
}
