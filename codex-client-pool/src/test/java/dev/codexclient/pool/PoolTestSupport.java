package dev.codexclient.pool;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/** Shared helpers of the pool's tests. */
final class PoolTestSupport {
    static final Duration WAIT = Duration.ofSeconds(5);

    private PoolTestSupport() {
    }

    /** Waits until {@code condition} holds, polling; fails with {@code what} after {@code timeout}. */
    static void awaitCondition(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for: " + what);
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for: " + what, e);
            }
        }
    }

    static void awaitCondition(String what, BooleanSupplier condition) {
        awaitCondition(what, WAIT, condition);
    }

    /** The failure of a future that must fail within {@code timeout}, unwrapped. */
    static Throwable failureOf(CompletableFuture<?> future, Duration timeout) {
        try {
            Object value = future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            throw new AssertionError("expected a failure but got " + value);
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (TimeoutException e) {
            throw new AssertionError("the future did not complete within " + timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /**
     * Names of live threads whose name starts with {@code codex-}, without those every client (or fake) shares and
     * that outlive each of them ({@code codex-shared-}).
     */
    static Set<String> codexThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .map(Thread::getName)
                .filter(n -> n.startsWith("codex-") && !n.startsWith("codex-shared-"))
                .collect(Collectors.toSet());
    }

    /**
     * Fails unless, within a few seconds, no thread of the SDK is left that was not there before and no child process
     * of this JVM is alive: a closed pool leaves nothing behind (its own threads, its members' processes).
     */
    static void assertNoLeaks(Set<String> threadsBefore) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        Set<String> leaked;
        List<ProcessHandle> children;
        do {
            leaked = new HashSet<>(codexThreads());
            leaked.removeAll(threadsBefore);
            children = ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).toList();
            if (leaked.isEmpty() && children.isEmpty()) {
                break;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        } while (System.nanoTime() < deadline);
        assertThat(leaked).as("SDK threads still alive after close").isEmpty();
        assertThat(children).as("child processes still alive after close")
                .extracting(p -> p.pid() + " " + p.info().commandLine().orElse("?")).isEmpty();
    }
}
