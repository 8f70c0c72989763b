package dev.codexclient.pool.internal;

import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexTransportException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a member's client, trying again when codex could not open its state database. codex keeps state in SQLite
 * files under {@code CODEX_HOME} ({@code state_N.sqlite}, {@code logs_N.sqlite}) and gives up its start when another
 * process holds them past its busy timeout: the app-server exits 1 with "failed to initialize sqlite state runtime
 * under HOME: …", the cause (when it prints one) "(code: 5) database is locked". Several servers starting at once on
 * one home, or one still writing when another starts, are enough (openai/codex#35555, #46269, #30105): that is a
 * server that could not start yet, not a dead member. Such a start is tried again after a growing, jittered pause (so
 * servers that collided do not collide again), a bounded number of times; any other failure is thrown at once.
 */
final class MemberStarts {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(MemberStarts.class);
    }

    /** How the waits between attempts are spent: on the pool's clock. */
    @FunctionalInterface
    interface Pause {
        void pause(Duration d) throws InterruptedException;
    }

    /**
     * What codex writes when its state database is busy or locked, lower case: its app-server's start error, the
     * SQLite result codes as sqlx words them (SQLITE_BUSY is 5, SQLITE_LOCKED 6), and the words of its own start-up
     * check.
     */
    private static final List<String> BUSY = List.of(
            "failed to initialize sqlite state runtime",
            "database is locked",
            "database table is locked",
            "sqlite_busy",
            "another codex process is using its local data");

    private final int attempts;
    private final Duration initialBackoff;
    private final Duration maxBackoff;
    private final Pause pause;

    /**
     * @param attempts       starts in all, at least 1 (1: never again)
     * @param initialBackoff the bound of the first pause
     * @param maxBackoff     the bound no pause exceeds
     * @param pause          spends a pause
     */
    MemberStarts(int attempts, Duration initialBackoff, Duration maxBackoff, Pause pause) {
        this.attempts = attempts;
        this.initialBackoff = initialBackoff;
        this.maxBackoff = maxBackoff;
        this.pause = pause;
    }

    /**
     * Builds a client with {@code factory}, again after a pause while its server's start fails on a busy state
     * database, at most {@code attempts} times in all.
     *
     * @throws RuntimeException what the factory threw: at once for any other failure, the last busy one when the
     *                          attempts ran out (the earlier ones suppressed in it)
     */
    <C> C start(String member, Supplier<C> factory) {
        RuntimeException first = null;
        for (int attempt = 1; ; attempt++) {
            try {
                C c = factory.get();
                if (first != null) {
                    Log.LOG.info("pool member {} started at attempt {}, once its state database was free", member,
                            attempt);
                }
                return c;
            } catch (RuntimeException e) {
                if (!busy(e)) {
                    throw e;
                }
                if (first == null) {
                    first = e;
                } else if (first != e) {
                    e.addSuppressed(first);
                    first = e;
                }
                if (attempt >= attempts) {
                    Log.LOG.warn("pool member {} could not start after {} attempts: its state database stayed busy",
                            member, attempts);
                    throw e;
                }
                Duration wait = backoff(attempt);
                Log.LOG.info("pool member {} could not start, its state database busy (attempt {} of {}); trying "
                        + "again in {} ms", member, attempt, attempts, wait.toMillis());
                try {
                    pause.pause(wait);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new CodexException("interrupted while waiting to start pool member " + member
                            + " again", e);
                }
            }
        }
    }

    /**
     * The pause after failed attempt {@code attempt} (from 1): its bound doubles from the initial backoff up to the
     * max, and the pause is drawn from the bound's upper half.
     */
    Duration backoff(int attempt) {
        long bound = initialBackoff.toNanos();
        for (int i = 1; i < attempt && bound < maxBackoff.toNanos(); i++) {
            bound = Math.min(bound * 2, maxBackoff.toNanos());
        }
        bound = Math.min(bound, maxBackoff.toNanos());
        return Duration.ofNanos(bound / 2 + ThreadLocalRandom.current().nextLong(bound - bound / 2 + 1));
    }

    /** Whether a start failed because codex found its state database busy or locked. */
    static boolean busy(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (mentionsBusy(t.getMessage())
                    || t instanceof CodexTransportException te && mentionsBusy(te.stderrTail())) {
                return true;
            }
        }
        return false;
    }

    private static boolean mentionsBusy(String text) {
        if (text == null) {
            return false;
        }
        String lower = text.toLowerCase(Locale.ROOT);
        return BUSY.stream().anyMatch(lower::contains);
    }
}
