package dev.codexclient.benchmarks;

import dev.codexclient.CodexClient;
import dev.codexclient.protocol.ServerNotification;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Figure 5, run in a JVM with a small heap: streams a command-output flood from the bench server child through
 * the SDK to a typed listener and prints the peak heap seen.
 *
 * <p>Usage: {@code MemoryFlood <flood.jsonl> <lines> <timeoutSeconds> <java> <classpath>}.
 */
public final class MemoryFlood {
    private MemoryFlood() {
    }

    @SuppressWarnings("try") // the client only has to stay open while the listener counts
    public static void main(String[] args) throws Exception {
        String file = args[0];
        int lines = Integer.parseInt(args[1]);
        long timeoutSeconds = Long.parseLong(args[2]);
        String java = args[3];
        String classpath = args[4];
        AtomicLong peak = new AtomicLong();
        Thread sampler = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                peak.accumulateAndGet(ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(), Math::max);
                try {
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "bench-heap-sampler");
        sampler.setDaemon(true);
        sampler.start();
        CountDownLatch done = new CountDownLatch(1);
        AtomicLong count = new AtomicLong();
        AtomicLong chars = new AtomicLong();
        long start = System.nanoTime();
        try (CodexClient client = CodexClient.builder()
                .command(List.of(java, "-Xmx64m", "-cp", classpath, BenchServer.class.getName(), file))
                .onNotification(n -> {
                    if (n instanceof ServerNotification.ItemCommandExecutionOutputDelta d) {
                        chars.addAndGet(d.params().delta().length());
                        if (count.incrementAndGet() == lines) {
                            done.countDown();
                        }
                    }
                })
                .build()) {
            boolean completed = done.await(timeoutSeconds, TimeUnit.SECONDS);
            long nanos = System.nanoTime() - start;
            sampler.interrupt();
            long poolPeaks = 0;
            for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                if (pool.getType() == MemoryType.HEAP && pool.getPeakUsage() != null) {
                    poolPeaks += pool.getPeakUsage().getUsed();
                }
            }
            System.out.println("RESULT completed=" + completed + " lines=" + count.get() + " chars=" + chars.get()
                    + " peakHeapBytes=" + peak.get() + " poolPeakBytes=" + poolPeaks
                    + " maxHeapBytes=" + Runtime.getRuntime().maxMemory() + " nanos=" + nanos);
        }
    }
}
