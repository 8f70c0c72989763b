package dev.codexclient.pool.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.pool.internal.MemberHealth.Change;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Ejection after failures in a row, the doubling backoff up to its bound, re-admission, and a fresh count after. */
class MemberHealthTest {
    private static final long S = 1_000_000_000L;

    @Test
    void ejectedAfterFailuresInARowCheckedWithADoublingBoundedBackoffAndReadmitted() {
        MemberHealth h = new MemberHealth(3, Duration.ofSeconds(1), Duration.ofSeconds(3));
        long t = 100 * S;
        assertThat(h.failed(t, "a")).isEqualTo(Change.NONE);
        assertThat(h.passed(t + S)).isEqualTo(Change.NONE);
        // A pass in between starts the count again.
        assertThat(h.failed(t + 2 * S, "b")).isEqualTo(Change.NONE);
        assertThat(h.failed(t + 3 * S, "c")).isEqualTo(Change.NONE);
        assertThat(h.ejected()).isFalse();
        assertThat(h.failed(t + 4 * S, "d")).isEqualTo(Change.EJECTED);
        assertThat(h.ejected()).isTrue();
        assertThat(h.consecutiveFailures()).isEqualTo(3);
        assertThat(h.lastFailure()).isEqualTo("d");
        assertThat(h.backoff()).isEqualTo(Duration.ofSeconds(1));

        assertThat(h.checkDue(t + 4 * S + S - 1)).isFalse();
        assertThat(h.checkDue(t + 5 * S)).isTrue();
        assertThat(h.failed(t + 5 * S, "e")).isEqualTo(Change.NONE);
        assertThat(h.backoff()).isEqualTo(Duration.ofSeconds(2));
        assertThat(h.checkDue(t + 6 * S)).isFalse();
        assertThat(h.failed(t + 7 * S, "f")).isEqualTo(Change.NONE);
        assertThat(h.backoff()).isEqualTo(Duration.ofSeconds(3));
        assertThat(h.failed(t + 10 * S, "g")).isEqualTo(Change.NONE);
        assertThat(h.backoff()).as("bounded").isEqualTo(Duration.ofSeconds(3));

        assertThat(h.passed(t + 13 * S)).isEqualTo(Change.READMITTED);
        assertThat(h.ejected()).isFalse();
        assertThat(h.checkDue(t + 13 * S)).isTrue();
        assertThat(h.ejectedAt()).isEqualTo(t + 4 * S);
        // Ejected again only after as many failures in a row, with the first backoff again.
        assertThat(h.failed(t + 14 * S, "h")).isEqualTo(Change.NONE);
        assertThat(h.failed(t + 15 * S, "i")).isEqualTo(Change.NONE);
        assertThat(h.failed(t + 16 * S, "j")).isEqualTo(Change.EJECTED);
        assertThat(h.backoff()).isEqualTo(Duration.ofSeconds(1));
    }
}
