package dev.codexclient.it.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.transport.MessageBuffer;
import dev.codexclient.transport.MessageSink;
import dev.codexclient.transport.TransportTermination;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/** Records what a transport delivers to it, for the real-codex transport tests. */
final class RecordingSink implements MessageSink {

    public final List<byte[]> messages = new CopyOnWriteArrayList<>();
    public final List<Long> oversized = new CopyOnWriteArrayList<>();
    public final List<String> threads = new CopyOnWriteArrayList<>();
    public final AtomicInteger closedCount = new AtomicInteger();
    private final CountDownLatch closed = new CountDownLatch(1);
    private volatile TransportTermination termination;
    private final Object signal = new Object();

    @Override
    public void onMessages(MessageBuffer messages) {
        for (int i = 0; i < messages.count(); i++) {
            onMessage(messages.copy(i));
        }
    }

    void onMessage(byte[] message) {
        threads.add(Thread.currentThread().getName());
        messages.add(message);
        synchronized (signal) {
            signal.notifyAll();
        }
    }

    @Override
    public void onOversizedMessage(long length) {
        threads.add(Thread.currentThread().getName());
        oversized.add(length);
        synchronized (signal) {
            signal.notifyAll();
        }
    }

    @Override
    public void onClosed(TransportTermination termination) {
        threads.add(Thread.currentThread().getName());
        this.termination = termination;
        closedCount.incrementAndGet();
        closed.countDown();
        synchronized (signal) {
            signal.notifyAll();
        }
    }

    public List<String> texts() {
        List<String> out = new ArrayList<>();
        for (byte[] m : messages) {
            out.add(new String(m, StandardCharsets.UTF_8));
        }
        return out;
    }

    public TransportTermination awaitClosed(Duration timeout) throws InterruptedException {
        assertThat(closed.await(timeout.toMillis(), TimeUnit.MILLISECONDS))
                .as("onClosed within %s", timeout).isTrue();
        return termination;
    }

    public boolean isClosed() {
        return closed.getCount() == 0;
    }

    /** Waits until a delivered message satisfies {@code p}; returns it. */
    public String awaitMessage(Predicate<String> p, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (signal) {
            while (true) {
                for (String t : texts()) {
                    if (p.test(t)) {
                        return t;
                    }
                }
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    throw new AssertionError("no matching message within " + timeout + "; got " + texts()
                            + (termination == null ? "" : "; closed: " + termination));
                }
                signal.wait(Math.min(left, 100));
            }
        }
    }
}
