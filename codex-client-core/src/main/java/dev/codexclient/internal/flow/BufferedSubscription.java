package dev.codexclient.internal.flow;

import dev.codexclient.errors.CodexBackpressureException;
import dev.codexclient.internal.time.Scheduler;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Flow;
import java.util.function.BinaryOperator;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@link Flow.Subscription}: what its source offers is held in a bounded buffer and handed to the subscriber
 * as it requests, one signal at a time, on a serial executor of its own (a delivery lane of the client).
 *
 * <p>The source never waits: {@link #offer} queues and returns. Events within the subscriber's outstanding demand
 * are on their way to its {@code onNext}; when more than {@code bufferSize} events wait beyond that demand (the
 * subscriber stopped requesting), the subscription ends with a {@link CodexBackpressureException}, signalled at
 * once (onError needs no demand), and the held events are let go. So a subscription holds at most its outstanding
 * demand plus {@code bufferSize} events: a subscriber that requests {@code Long.MAX_VALUE} takes on the buffering
 * itself. Events handed over as a {@link #offerBacklog backlog} (a turn's replay, which the turn holds anyway) do
 * not count towards the bound.
 *
 * <p>With a {@code coalescer}, a live event that arrives while the last queued live event waits beyond the demand
 * (the subscriber lags) is first offered to it with that event: when it returns one event for the two, that event
 * takes the waiting one's place and nothing is added, so a lagging subscriber gets the same content in fewer events
 * and the bound is reached only by events that cannot be merged. Events within the demand are never merged: they are
 * on their way already.
 *
 * <p>With a {@link Pacing}, events it names (text deltas) are also spaced in time: one is handed over at most every
 * {@code interval}, measured on the pacing's clock, even within the demand. A paced event that is due later waits
 * while it is the last queued event; the next event of the same stream is merged into it by the coalescer, and
 * anything else queued behind it ends the wait. So a subscriber whose demand stays open (a streaming HTTP response,
 * whose network buffers keep requesting) gets at most one paced event per interval, whatever the server's pace, for at
 * most {@code interval} of added delay.
 *
 * <p>Signals, per the Reactive Streams rules: {@code onSubscribe} first; {@code onNext} only within the demand;
 * the source's end ({@link #complete()}, {@link #error}) after the events held before it; an overflow, a
 * non-positive {@code request} (rule 3.9) or a subscriber that throws end the subscription at once. Every signal
 * runs on {@code lane}, which runs one task at a time, so signals never overlap (rule 1.3), and a {@code request}
 * from inside {@code onNext} only adds demand for the running drain to use (no recursion, rule 3.3). Once the
 * subscription ends (cancelled, overflowed, terminated), the source is released and the subscriber is no longer
 * referenced (rule 3.13).
 *
 * <p>Threading: {@link #offer}, {@link #offerBacklog}, {@link #complete}, {@link #error}, {@link #request} and
 * {@link #cancel} from any thread; they hold this object's lock only to update its state, never while the
 * subscriber runs.
 *
 * @param <T> the type of the events
 */
public final class BufferedSubscription<T> implements Flow.Subscription {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(BufferedSubscription.class);
    }

    /** Signals one drain hands over before it yields its pool thread to other lanes. */
    private static final int BATCH = 256;

    private final Executor lane;
    private final int bufferSize;
    private final String source;
    private final BinaryOperator<T> coalescer;
    private final Pacing<T> pacing;

    /**
     * Spaces the events it names in time: at most one every {@code interval} on {@code scheduler}'s clock.
     *
     * @param scheduler the clock, and the timer that ends a wait
     * @param interval  the shortest time between two paced events handed over, in nanoseconds; positive
     * @param paced     which events are paced (they must be ones the coalescer merges, or nothing is gained)
     * @param <T>       the type of the events
     */
    public record Pacing<T>(Scheduler scheduler, long interval, Predicate<? super T> paced) {
        /**
         * Checks the interval.
         *
         * @param scheduler the clock and timer
         * @param interval  positive nanoseconds
         * @param paced     which events are paced
         */
        public Pacing {
            Objects.requireNonNull(scheduler, "scheduler");
            Objects.requireNonNull(paced, "paced");
            if (interval <= 0) {
                throw new IllegalArgumentException("interval must be positive: " + interval);
            }
        }
    }

    // Guarded by this.
    private Flow.Subscriber<? super T> subscriber;
    private final ArrayDeque<T> queue = new ArrayDeque<>();
    /** How many of the queued events, at its head, are backlog (not counted against the buffer size). */
    private int backlog;
    private long demand;
    private boolean subscribed;
    /** An end to signal after the queued events: completion (null cause) or the source's failure. */
    private boolean ending;
    private Throwable endCause;
    /** An error to signal at once, ahead of anything queued. */
    private Throwable abort;
    /** No more signals: cancelled, or a terminal signal was taken for delivery. */
    private boolean done;
    /** A drain is queued on the lane or running. */
    private boolean scheduled;
    private Runnable release;
    private boolean released;
    /** With pacing: when the next paced event may be handed over, on the pacing's clock; set by each hand-over. */
    private long nextPacedAt;
    private boolean pacedBefore;
    /** With pacing: the timer that ends the wait of a paced event, while one waits. */
    private Scheduler.Task pacer;

    /**
     * A subscription not yet started.
     *
     * @param subscriber the subscriber; {@link #start()} sends it its {@code onSubscribe}
     * @param lane       runs the drains, one at a time, in order, never on the connection's reader thread
     * @param bufferSize how many events beyond the outstanding demand (and the backlog) the subscription holds before
     *                   it overflows
     * @param source     what the subscription is to, for the overflow's message
     */
    public BufferedSubscription(Flow.Subscriber<? super T> subscriber, Executor lane, int bufferSize, String source) {
        this(subscriber, lane, bufferSize, source, (a, b) -> null);
    }

    /**
     * A subscription not yet started that merges consecutive events while its subscriber lags.
     *
     * @param subscriber the subscriber; {@link #start()} sends it its {@code onSubscribe}
     * @param lane       runs the drains, one at a time, in order, never on the connection's reader thread
     * @param bufferSize how many events beyond the outstanding demand (and the backlog) the subscription holds before
     *                   it overflows
     * @param source     what the subscription is to, for the overflow's message
     * @param coalescer  given a waiting event and the next one, the one event that stands for both, or null when
     *                   they stay apart; runs under the subscription's lock, so it must be quick and never block
     */
    public BufferedSubscription(Flow.Subscriber<? super T> subscriber, Executor lane, int bufferSize, String source,
                                BinaryOperator<T> coalescer) {
        this(subscriber, lane, bufferSize, source, coalescer, null);
    }

    /**
     * A subscription not yet started that merges consecutive events while its subscriber lags, and spaces paced
     * events in time.
     *
     * @param subscriber the subscriber; {@link #start()} sends it its {@code onSubscribe}
     * @param lane       runs the drains, one at a time, in order, never on the connection's reader thread
     * @param bufferSize how many events beyond the outstanding demand (and the backlog) the subscription holds before
     *                   it overflows
     * @param source     what the subscription is to, for the overflow's message
     * @param coalescer  given a waiting event and the next one, the one event that stands for both, or null when
     *                   they stay apart; runs under the subscription's lock, so it must be quick and never block
     * @param pacing     how paced events are spaced in time; null for no pacing
     */
    public BufferedSubscription(Flow.Subscriber<? super T> subscriber, Executor lane, int bufferSize, String source,
                                BinaryOperator<T> coalescer, Pacing<T> pacing) {
        this.pacing = pacing;
        this.coalescer = Objects.requireNonNull(coalescer, "coalescer");
        this.subscriber = Objects.requireNonNull(subscriber, "subscriber");
        this.lane = Objects.requireNonNull(lane, "lane");
        if (bufferSize < 1) {
            throw new IllegalArgumentException("bufferSize must be positive: " + bufferSize);
        }
        this.bufferSize = bufferSize;
        this.source = source;
    }

    /** Queues the subscriber's {@code onSubscribe}, the first signal it gets. */
    public void start() {
        schedule();
    }

    /**
     * Sets what ends the subscription's hold on its source (a listener's close); runs it at once when the
     * subscription already ended. Called once.
     *
     * @param release closes the subscription's listener
     */
    public void onRelease(Runnable release) {
        Objects.requireNonNull(release, "release");
        boolean now;
        synchronized (this) {
            this.release = release;
            now = done || abort != null || ending;
        }
        if (now) {
            release();
        }
    }

    /**
     * Whether the subscription ended.
     *
     * @return true once cancelled, overflowed, or its end was taken for delivery
     */
    public synchronized boolean isDone() {
        return done;
    }

    /**
     * Queues an event the source had before this subscription (a replay): it does not count against the bound.
     *
     * @param event the event
     */
    public void offerBacklog(T event) {
        Objects.requireNonNull(event, "event");
        synchronized (this) {
            if (done || abort != null || ending) {
                return;
            }
            queue.add(event);
            backlog++;
        }
        schedule();
    }

    /**
     * Queues a live event; overflows the subscription when more than the buffer size wait beyond the demand.
     *
     * @param event the event
     */
    public void offer(T event) {
        Objects.requireNonNull(event, "event");
        boolean overflowed = false;
        synchronized (this) {
            if (done || abort != null || ending) {
                return;
            }
            if (queue.size() > backlog && (queue.size() > demand || pacing != null)) {
                // The last live event waits beyond the demand (the subscriber lags), or waits for its pace: it may
                // take this one too. Queued events are never on their way: the drain takes them out under the lock.
                T merged = coalescer.apply(queue.peekLast(), event);
                if (merged != null) {
                    queue.pollLast();
                    queue.addLast(merged);
                    return;
                }
            }
            queue.add(event);
            // Events within the demand are on their way to onNext; what waits beyond it is what the bound is on.
            if ((long) queue.size() - backlog - demand <= bufferSize) {
                if (demand == 0 || scheduled) {
                    return;
                }
            } else {
                overflow();
                overflowed = true;
            }
        }
        if (overflowed) {
            release();
        }
        schedule();
    }

    /** Gives up on a subscriber that let more than the buffer size wait. Holds the lock. */
    private void overflow() {
        queue.clear();
        backlog = 0;
        abort = new CodexBackpressureException(source, bufferSize);
        Log.LOG.debug("A subscriber to {} let {} events wait; ending its subscription", source, bufferSize);
    }

    /** The source ended normally: {@code onComplete} follows the events already queued. */
    public void complete() {
        end(null);
    }

    /**
     * The source failed: {@code onError(cause)} follows the events already queued.
     *
     * @param cause why the source failed
     */
    public void error(Throwable cause) {
        end(Objects.requireNonNull(cause, "cause"));
    }

    private void end(Throwable cause) {
        synchronized (this) {
            if (done || abort != null || ending) {
                return;
            }
            ending = true;
            endCause = cause;
        }
        release();
        schedule();
    }

    @Override
    public void request(long n) {
        synchronized (this) {
            if (done || abort != null) {
                return;
            }
            if (n <= 0) {
                queue.clear();
                backlog = 0;
                abort = new IllegalArgumentException("request(" + n + "): a subscriber must request a positive "
                        + "number of events (Reactive Streams rule 3.9)");
            } else {
                long sum = demand + n;
                demand = sum < 0 ? Long.MAX_VALUE : sum;
                if (queue.isEmpty() && !ending) {
                    return;
                }
            }
        }
        if (n <= 0) {
            release();
        }
        schedule();
    }

    @Override
    public void cancel() {
        synchronized (this) {
            if (done) {
                return;
            }
            done = true;
            queue.clear();
            backlog = 0;
            subscriber = null;
            stopPacer();
        }
        release();
    }

    private void release() {
        Runnable r;
        synchronized (this) {
            if (released || release == null) {
                return;
            }
            released = true;
            r = release;
            release = null;
        }
        r.run();
    }

    private void schedule() {
        synchronized (this) {
            if (scheduled || (done && subscribed)) {
                return;
            }
            scheduled = true;
        }
        lane.execute(this::drain);
    }

    /** Hands over what the demand allows, then the end when it is due. Runs on the lane only. */
    private void drain() {
        Flow.Subscriber<? super T> s;
        boolean first;
        synchronized (this) {
            first = !subscribed;
            subscribed = true;
            s = subscriber;
        }
        if (first && s != null && !signal(s, Signal.SUBSCRIBE, null)) {
            return;
        }
        for (int i = 0; i < BATCH; i++) {
            T next = null;
            Signal signal;
            Throwable failure = null;
            synchronized (this) {
                s = subscriber;
                if (done || s == null) {
                    scheduled = false;
                    return;
                }
                if (abort != null) {
                    signal = Signal.ERROR;
                    failure = abort;
                } else if (demand > 0 && !queue.isEmpty() && waitsForPace()) {
                    scheduled = false;
                    return;
                } else if (demand > 0 && !queue.isEmpty()) {
                    signal = Signal.NEXT;
                    next = queue.poll();
                    if (backlog > 0) {
                        backlog--;
                    }
                    if (demand != Long.MAX_VALUE) {
                        demand--;
                    }
                } else if (queue.isEmpty() && ending) {
                    signal = endCause == null ? Signal.COMPLETE : Signal.ERROR;
                    failure = endCause;
                } else {
                    scheduled = false;
                    return;
                }
                if (signal == Signal.NEXT) {
                    paced(next);
                } else {
                    done = true;
                    subscriber = null;
                    queue.clear();
                    stopPacer();
                }
            }
            if (!signal(s, signal, signal == Signal.NEXT ? next : failure)) {
                return;
            }
        }
        // A long run of events: let other lanes have the pool thread, then go on.
        lane.execute(this::drain);
    }

    /**
     * Whether the head, a paced event handed over too soon after the last one, waits: only while it is the last
     * queued event (what follows it could not be merged into it) and the source has not ended. Arms the timer that
     * ends the wait. Holds the lock.
     */
    private boolean waitsForPace() {
        if (pacing == null || !pacedBefore || ending || queue.size() != 1 || !pacing.paced().test(queue.peek())) {
            return false;
        }
        long wait = nextPacedAt - pacing.scheduler().nanoTime();
        if (wait <= 0) {
            return false;
        }
        if (pacer == null) {
            try {
                pacer = pacing.scheduler().schedule(this::paceDue, wait);
            } catch (RejectedExecutionException closed) {
                return false;   // the client is closing: no timer will come, so no wait
            }
        }
        return true;
    }

    /** Notes the hand-over of a paced event: the next may follow an interval later. Holds the lock. */
    private void paced(T handedOver) {
        if (pacing != null && pacing.paced().test(handedOver)) {
            nextPacedAt = pacing.scheduler().nanoTime() + pacing.interval();
            pacedBefore = true;
        }
    }

    private void paceDue() {
        synchronized (this) {
            pacer = null;
        }
        schedule();
    }

    /** Holds the lock. */
    private void stopPacer() {
        if (pacer != null) {
            pacer.cancel();
            pacer = null;
        }
    }

    private enum Signal { SUBSCRIBE, NEXT, COMPLETE, ERROR }

    /** Calls the subscriber; one that throws breaks the rules (2.13) and is cancelled. False when it threw. */
    @SuppressWarnings("unchecked")
    private boolean signal(Flow.Subscriber<? super T> s, Signal signal, Object value) {
        try {
            switch (signal) {
                case SUBSCRIBE -> s.onSubscribe(this);
                case NEXT -> s.onNext((T) value);
                case COMPLETE -> s.onComplete();
                case ERROR -> s.onError((Throwable) value);
            }
            return true;
        } catch (RuntimeException | Error e) {
            Log.LOG.warn("A subscriber to {} threw from {}; cancelling its subscription", source, signal, e);
            synchronized (this) {
                scheduled = false;
            }
            cancel();
            return false;
        }
    }
}
