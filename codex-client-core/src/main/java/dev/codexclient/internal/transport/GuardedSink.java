package dev.codexclient.internal.transport;

import dev.codexclient.transport.MessageBuffer;
import dev.codexclient.transport.MessageSink;
import dev.codexclient.transport.TransportTermination;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shields a transport from its sink and the sink from the transport's shutdown races: a throwing sink is logged,
 * never allowed to kill the reader thread; {@code onClosed} is delivered exactly once, and nothing after it.
 */
public final class GuardedSink implements MessageSink {

    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(GuardedSink.class);
    }


    private final MessageSink delegate;
    private final String source;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final CountDownLatch closedLatch = new CountDownLatch(1);
    private volatile TransportTermination termination;

    public GuardedSink(MessageSink delegate, String source) {
        this.delegate = delegate;
        this.source = source;
    }

    @Override
    public void onMessages(MessageBuffer messages) {
        if (closed.get() || messages.isEmpty()) {
            return;
        }
        try {
            delegate.onMessages(messages);
        } catch (RuntimeException | Error e) {
            Log.LOG.error("message sink of {} threw; the rest of its batch is dropped and reading goes on", source, e);
        }
    }

    @Override
    public void onOversizedMessage(long length) {
        if (closed.get()) {
            return;
        }
        try {
            delegate.onOversizedMessage(length);
        } catch (RuntimeException | Error e) {
            Log.LOG.error("message sink of {} threw on an oversized message", source, e);
        }
    }

    /** Delivers the termination unless one was already delivered. */
    @Override
    public void onClosed(TransportTermination termination) {
        deliverClosed(termination);
    }

    /** Like {@link #onClosed}, reporting whether this call was the one that delivered. */
    public boolean deliverClosed(TransportTermination termination) {
        if (!closed.compareAndSet(false, true)) {
            return false;
        }
        this.termination = termination;
        try {
            delegate.onClosed(termination);
        } catch (RuntimeException | Error e) {
            Log.LOG.error("message sink of {} threw in onClosed", source, e);
        } finally {
            closedLatch.countDown();
        }
        return true;
    }

    /** Whether {@code onClosed} was delivered (or is being delivered). */
    public boolean isClosed() {
        return closed.get();
    }

    /** The delivered termination, or null while open. */
    public TransportTermination termination() {
        return termination;
    }

    /** Waits until {@code onClosed} has returned; false on timeout. */
    public boolean awaitClosed(long timeout, TimeUnit unit) {
        try {
            return closedLatch.await(timeout, unit);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
