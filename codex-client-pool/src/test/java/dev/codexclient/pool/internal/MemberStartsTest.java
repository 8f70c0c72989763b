package dev.codexclient.pool.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexTransportException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A member's start that found codex's state database busy is tried again after growing pauses, a bounded number of
 * times; any other failure is not. The messages are codex's own: its app-server's start error and SQLite's codes.
 */
class MemberStartsTest {
    /** What codex's app-server writes to stderr before it exits 1 (codex-rs/app-server, its start). */
    private static final String STATE_RUNTIME = "Error: failed to initialize sqlite state runtime under /srv/codex: "
            + "failed to initialize state runtime at /srv/codex";
    /** The cause as the CLI prints it: sqlx's words for SQLITE_BUSY. */
    private static final String LOCKED = "failed to open state DB at /srv/codex/state_5.sqlite: error returned from "
            + "database: (code: 5) database is locked";

    private final List<Duration> pauses = new ArrayList<>();
    private final MemberStarts starts = new MemberStarts(4, Duration.ofMillis(100), Duration.ofMillis(300),
            pauses::add);

    private static CodexTransportException exited(String stderr) {
        return new CodexTransportException("codex app-server exited during the handshake", OptionalInt.of(1), stderr,
                null);
    }

    @Test
    void codexsBusyAndLockedWordsAreRecognisedWhereverTheyAre() {
        assertThat(MemberStarts.busy(exited(STATE_RUNTIME))).isTrue();
        assertThat(MemberStarts.busy(exited("ERROR: " + LOCKED))).isTrue();
        assertThat(MemberStarts.busy(exited("error returned from database: (code: 6) database table is locked")))
                .isTrue();
        assertThat(MemberStarts.busy(exited("Codex couldn't start because another Codex process is using its "
                + "local data."))).isTrue();
        assertThat(MemberStarts.busy(new CodexException("the build failed", exited(STATE_RUNTIME)))).isTrue();
        assertThat(MemberStarts.busy(exited("Error: unexpected argument '--listen' found"))).isFalse();
        assertThat(MemberStarts.busy(new CodexTransportException("the connection ended"))).isFalse();
        assertThat(MemberStarts.busy(new IllegalStateException((String) null))).isFalse();
    }

    @Test
    void aBusyStartIsTriedAgainAfterGrowingPausesUntilItStarts() {
        AtomicInteger calls = new AtomicInteger();
        String started = starts.start("a", () -> {
            if (calls.incrementAndGet() < 3) {
                throw exited(STATE_RUNTIME);
            }
            return "client";
        });
        assertThat(started).isEqualTo("client");
        assertThat(calls).hasValue(3);
        assertThat(pauses).hasSize(2);
        assertThat(pauses.get(0)).isBetween(Duration.ofMillis(50), Duration.ofMillis(100));
        assertThat(pauses.get(1)).isBetween(Duration.ofMillis(100), Duration.ofMillis(200));
    }

    @Test
    void aStartBusyEveryTimeFailsWithItsLastFailureAfterTheAttemptsAndThePausesStayBounded() {
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(() -> starts.start("a", () -> {
            throw exited(STATE_RUNTIME + " #" + calls.incrementAndGet());
        })).isInstanceOf(CodexTransportException.class).hasMessageContaining("#4")
                .satisfies(e -> assertThat(e.getSuppressed()).isNotEmpty());
        assertThat(calls).hasValue(4);
        assertThat(pauses).hasSize(3);
        assertThat(pauses.get(2)).isBetween(Duration.ofMillis(150), Duration.ofMillis(300));
        assertThat(starts.backoff(10)).isLessThanOrEqualTo(Duration.ofMillis(300));
    }

    @Test
    void anyOtherFailureIsThrownAtOnce() {
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(() -> starts.start("a", () -> {
            calls.incrementAndGet();
            throw exited("Error: unexpected argument '--listen' found");
        })).isInstanceOf(CodexTransportException.class);
        assertThat(calls).hasValue(1);
        assertThat(pauses).isEmpty();
    }

    @Test
    void anInterruptDuringAPauseEndsTheStartTyped() {
        MemberStarts interrupted = new MemberStarts(3, Duration.ofMillis(100), Duration.ofMillis(300), d -> {
            throw new InterruptedException();
        });
        assertThatThrownBy(() -> interrupted.start("a", () -> {
            throw exited(STATE_RUNTIME);
        })).isInstanceOf(CodexException.class).hasMessageContaining("interrupted");
        assertThat(Thread.interrupted()).isTrue();
    }
}
