package dev.codexclient.benchmarks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Figure 6: many concurrent turns, one of whose delta listeners blocks; measures how late the other turns' deltas
 * arrive. Each delta carries the {@link System#nanoTime()} at which the server side injected it.
 */
final class Isolation {
    record Result(int turns, long measured, long p50Nanos, long p99Nanos, long maxNanos, long blockedMaxNanos) {
    }

    private Isolation() {
    }

    static Result run(int turnCount, int rounds, Duration pace, Duration block) throws InterruptedException {
        Recording recording = Recording.load();
        CannedServer server = new CannedServer(recording, false);
        int measured = (turnCount - 1) * rounds;
        long[] latencies = new long[measured];
        AtomicInteger next = new AtomicInteger();
        AtomicLong blockedMax = new AtomicLong();
        AtomicBoolean blocked = new AtomicBoolean();
        CountDownLatch others = new CountDownLatch(measured);
        CountDownLatch blockedDone = new CountDownLatch(rounds);
        try (CodexClient client = CodexClient.builder().transport(server).build()) {
            List<CodexTurn> turns = new ArrayList<>();
            for (int k = 0; k < turnCount; k++) {
                CodexThread thread = client.startThread();
                CodexTurn turn = thread.startTurn("stream");
                boolean isA = k == 0;
                turn.onAgentMessageDelta(d -> {
                    long latency = System.nanoTime() - Long.parseLong(d.delta());
                    if (isA) {
                        blockedMax.accumulateAndGet(latency, Math::max);
                        if (blocked.compareAndSet(false, true) && !block.isZero()) {
                            LockSupport.parkNanos(block.toNanos());
                        }
                        blockedDone.countDown();
                    } else {
                        latencies[next.getAndIncrement()] = latency;
                        others.countDown();
                    }
                });
                turns.add(turn);
            }
            ObjectNode template = (ObjectNode) recording.first("item/agentMessage/delta");
            ObjectNode params = (ObjectNode) template.get("params");
            for (int r = 0; r < rounds; r++) {
                for (CodexTurn turn : turns) {
                    params.put("threadId", turn.threadId());
                    params.put("turnId", turn.id());
                    params.put("delta", Long.toString(System.nanoTime()));
                    server.inject(Recording.bytes(template));
                }
                LockSupport.parkNanos(pace.toNanos());
            }
            if (!others.await(60, TimeUnit.SECONDS) || !blockedDone.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("deltas were not all delivered within 60 s");
            }
        }
        Arrays.sort(latencies);
        return new Result(turnCount, measured, percentile(latencies, 0.50), percentile(latencies, 0.99),
                latencies[latencies.length - 1], blockedMax.get());
    }

    static long percentile(long[] sorted, double p) {
        int i = (int) Math.ceil(p * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }
}
