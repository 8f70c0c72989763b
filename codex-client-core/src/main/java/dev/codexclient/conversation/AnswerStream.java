package dev.codexclient.conversation;

import dev.codexclient.CodexTurn;
import dev.codexclient.TurnResult;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadItem;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A turn's answer as a {@link Flow.Publisher} of {@link AnswerPart}s, over the turn's own publisher
 * ({@link CodexTurn#publisher()}): its text deltas as they come, the final message as one piece when codex sent it
 * without deltas, then the end. Cold: each subscription starts its turn. Backpressure is the turn publisher's: this
 * asks it for as many events as its subscriber asked for (and one more for each event that is not a text delta), so
 * what waits beyond the subscriber's demand waits there, bounded by the client's publisher buffer and merged under
 * {@link dev.codexclient.PublisherOverflow#COALESCE_DELTAS}. Cancelling interrupts the turn. One job: that mapping.
 */
final class AnswerStream implements Flow.Publisher<AnswerPart> {
    private final Supplier<CompletableFuture<CodexTurn>> start;

    AnswerStream(Supplier<CompletableFuture<CodexTurn>> start) {
        this.start = start;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super AnswerPart> subscriber) {
        new Relay(subscriber).begin(start);
    }

    /** One subscription: the subscriber's side and the turn publisher's side. */
    private static final class Relay implements Flow.Subscription, Flow.Subscriber<ServerNotification> {
        private final Flow.Subscriber<? super AnswerPart> downstream;
        private final Queue<AnswerPart> ready = new ConcurrentLinkedQueue<>();
        private final AtomicLong demand = new AtomicLong();
        private final AtomicInteger wip = new AtomicInteger();
        /** The agent messages that had deltas: a final message without any is sent whole at the end. */
        private final Set<String> streamed = ConcurrentHashMap.newKeySet();
        private final Object lock = new Object();
        // Guarded by lock: the turn publisher's subscription, and the demand asked for before it came.
        private Flow.Subscription upstream;
        private long pending;
        private volatile CodexTurn turn;
        private volatile boolean cancelled;
        private volatile boolean done;
        private volatile Throwable error;
        // Touched inside the drain loop only.
        private boolean terminated;

        Relay(Flow.Subscriber<? super AnswerPart> downstream) {
            this.downstream = downstream;
        }

        void begin(Supplier<CompletableFuture<CodexTurn>> start) {
            downstream.onSubscribe(this);
            CompletableFuture<CodexTurn> started;
            try {
                started = start.get();
            } catch (RuntimeException e) {
                finish(e);
                return;
            }
            started.whenComplete((t, failure) -> {
                if (failure != null) {
                    finish(CodexConversations.unwrap(failure));
                    return;
                }
                turn = t;
                if (cancelled) {
                    interrupt(t);
                    return;
                }
                t.publisher().subscribe(this);
            });
        }

        // ------------------------------------------------------------------ the subscriber's side

        @Override
        public void request(long n) {
            if (n <= 0) {
                finish(new IllegalArgumentException("a request must be positive (Reactive Streams 3.9): " + n));
                cancel();
                return;
            }
            add(demand, n);
            Flow.Subscription up;
            synchronized (lock) {
                up = upstream;
                if (up == null) {
                    pending = Math.min(Long.MAX_VALUE - n, pending) + n;
                }
            }
            if (up != null) {
                up.request(n);
            }
            drain();
        }

        @Override
        public void cancel() {
            cancelled = true;
            Flow.Subscription up;
            synchronized (lock) {
                up = upstream;
            }
            if (up != null) {
                up.cancel();
            }
            CodexTurn t = turn;
            if (t != null) {
                interrupt(t);
            }
            ready.clear();
        }

        private static void interrupt(CodexTurn t) {
            if (!t.isDone()) {
                t.interruptAsync();
            }
        }

        // ------------------------------------------------------------------ the turn publisher's side

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            long asked;
            synchronized (lock) {
                upstream = subscription;
                asked = pending;
                pending = 0;
            }
            if (cancelled) {
                subscription.cancel();
            } else if (asked > 0) {
                subscription.request(asked);
            }
        }

        @Override
        public void onNext(ServerNotification event) {
            if (event instanceof ServerNotification.ItemAgentMessageDelta d && d.params() != null
                    && d.params().delta() != null && !d.params().delta().isEmpty()) {
                streamed.add(String.valueOf(d.params().itemId()));
                ready.add(new AnswerPart.Text(d.params().threadId(), d.params().turnId(), d.params().delta()));
                drain();
                return;
            }
            // Not a part of the answer: ask for the event in its place, so the subscriber's demand stays whole.
            Flow.Subscription up;
            synchronized (lock) {
                up = upstream;
            }
            up.request(1);
        }

        @Override
        public void onError(Throwable failure) {
            finish(failure);
        }

        @Override
        public void onComplete() {
            CodexTurn t = turn;
            t.result().whenComplete((result, failure) -> {
                if (failure != null) {
                    finish(CodexConversations.unwrap(failure));
                    return;
                }
                unstreamed(result, t);
                ready.add(new AnswerPart.End(result));
                finish(null);
            });
        }

        /** Adds the final message as one piece when codex sent it without deltas. */
        private void unstreamed(TurnResult result, CodexTurn t) {
            String text = result.finalText();
            if (text.isEmpty()) {
                return;
            }
            String last = null;
            for (ThreadItem item : result.items()) {
                if (item instanceof ThreadItem.AgentMessage m) {
                    last = m.id();
                }
            }
            boolean sent = last != null ? streamed.contains(last) : !streamed.isEmpty();
            if (!sent) {
                ready.add(new AnswerPart.Text(t.threadId(), t.id(), text));
            }
        }

        // ------------------------------------------------------------------ delivery

        private void finish(Throwable failure) {
            if (failure != null && error == null) {
                error = failure;
            }
            done = true;
            drain();
        }

        /** Hands out what is ready, one signal at a time, whoever calls. */
        private void drain() {
            if (wip.getAndIncrement() != 0) {
                return;
            }
            do {
                if (!terminated && !cancelled) {
                    Throwable failure = error;
                    if (failure != null) {
                        // An error needs no demand; what was ready is let go with the stream.
                        terminated = true;
                        ready.clear();
                        downstream.onError(failure);
                    } else {
                        while (demand.get() > 0 && !cancelled) {
                            AnswerPart part = ready.poll();
                            if (part == null) {
                                break;
                            }
                            if (demand.get() != Long.MAX_VALUE) {
                                demand.decrementAndGet();
                            }
                            downstream.onNext(part);
                        }
                        if (done && ready.isEmpty() && !cancelled && error == null) {
                            terminated = true;
                            downstream.onComplete();
                        }
                    }
                }
            } while (wip.decrementAndGet() != 0);
        }

        private static void add(AtomicLong counter, long n) {
            counter.getAndUpdate(v -> v >= Long.MAX_VALUE - n ? Long.MAX_VALUE : v + n);
        }
    }
}
