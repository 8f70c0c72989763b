package dev.codexclient.benchmarks;

import dev.codexclient.CodexTurn;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * The load of figure 8: every thread runs {@code turns} turns one after another, all threads at once. A turn's
 * latency runs from the moment its {@code turn/start} is sent (the call that sends it) to the moment its
 * {@code turn/completed} is seen (its result completes); the next turn of the thread starts from there, on
 * {@code executor}, never on the client's threads.
 *
 * <p>Every fifth turn of a thread, starting with its second ({@link #COMMAND_EVERY}), runs a command (the scripted
 * model calls {@code exec_command}, codex runs it and sends its output back to the model, which then replies); the
 * others are a streamed reply. The share of command turns is so the same whatever the number of turns.
 */
final class TurnLoad {
    /** The marker of a turn in which the scripted model runs a command. */
    static final String COMMAND = "[cmd]";

    /** One turn in this many runs a command. */
    static final int COMMAND_EVERY = 5;

    private TurnLoad() {
    }

    /**
     * The outcome of one load.
     *
     * @param latencies every turn's latency, sorted
     * @param wallNanos from the first turn sent to the last one completed
     */
    record Result(long[] latencies, long wallNanos) {

        /** The nearest-rank percentile {@code p} (0-1) of the latencies. */
        long percentile(double p) {
            int rank = (int) Math.ceil(p * latencies.length);
            return latencies[Math.max(0, Math.min(latencies.length - 1, rank - 1))];
        }

        long max() {
            return latencies[latencies.length - 1];
        }

        int turns() {
            return latencies.length;
        }

        double turnsPerSecond() {
            return turns() / (wallNanos / 1e9);
        }
    }

    /** What the user of a thread sends as turn {@code k}. */
    static String text(int k) {
        return k % COMMAND_EVERY == 1 ? COMMAND + " run the check, turn " + k : "explain part " + k;
    }

    /**
     * Runs the load on {@code threads}, each given as the call that starts a turn on it.
     *
     * @param threads one function per thread: sends {@code turn/start} with the text, completes when accepted
     * @param turns   turns per thread
     * @param timeout how long the whole load may take before it is given up
     * @throws IllegalStateException when a turn failed or did not complete, or the load ran past {@code timeout}
     */
    static Result run(List<Function<String, CompletableFuture<CodexTurn>>> threads, int turns, Duration timeout,
                      Executor executor) throws InterruptedException {
        AtomicLongArray latencies = new AtomicLongArray(threads.size() * turns);
        CountDownLatch done = new CountDownLatch(threads.size());
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long start = System.nanoTime();
        for (int t = 0; t < threads.size(); t++) {
            int thread = t;
            executor.execute(() -> step(threads.get(thread), thread, 0, turns, latencies, done, failure, executor));
        }
        if (!done.await(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            throw new IllegalStateException(threads.size() + " threads did not finish their " + turns
                    + " turns within " + timeout + " (" + done.getCount() + " still running)");
        }
        long wall = System.nanoTime() - start;
        if (failure.get() != null) {
            throw new IllegalStateException("a turn failed under load: " + failure.get(), failure.get());
        }
        long[] sorted = new long[latencies.length()];
        for (int i = 0; i < sorted.length; i++) {
            sorted[i] = latencies.get(i);
        }
        Arrays.sort(sorted);
        return new Result(sorted, wall);
    }

    private static void step(Function<String, CompletableFuture<CodexTurn>> thread, int index, int k, int turns,
                             AtomicLongArray latencies, CountDownLatch done, AtomicReference<Throwable> failure,
                             Executor executor) {
        if (k == turns || failure.get() != null) {
            done.countDown();
            return;
        }
        long sent = System.nanoTime();
        CompletableFuture<CodexTurn> started;
        try {
            started = thread.apply(text(k));
        } catch (RuntimeException e) {
            started = CompletableFuture.failedFuture(e);
        }
        started.thenCompose(CodexTurn::result).whenComplete((result, error) -> {
            long latency = System.nanoTime() - sent;
            if (error == null && !result.isCompleted()) {
                error = new IllegalStateException("turn " + k + " of thread " + index + " ended "
                        + result.status());
            }
            if (error != null) {
                failure.compareAndSet(null, error);
                done.countDown();
                return;
            }
            latencies.set(index * turns + k, latency);
            executor.execute(() -> step(thread, index, k + 1, turns, latencies, done, failure, executor));
        });
    }
}
