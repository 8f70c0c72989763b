package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.WAIT;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A Flow subscriber that records what it gets and checks the rules it can see: no {@code onNext} beyond what it
 * requested, no signal after the end, no two signals at once, none outside the client's callback threads (so
 * none on the thread that reads the connection, nor on the thread that called {@code subscribe} or
 * {@code request}).
 */
class RecordingSubscriber<T> implements Flow.Subscriber<T> {
    final List<T> items = new CopyOnWriteArrayList<>();
    final BlockingQueue<T> arrivals = new LinkedBlockingQueue<>();
    final CompletableFuture<Void> end = new CompletableFuture<>();
    final CompletableFuture<Flow.Subscription> subscribed = new CompletableFuture<>();
    final List<String> violations = new CopyOnWriteArrayList<>();
    private final AtomicLong requested = new AtomicLong();
    private final AtomicInteger inside = new AtomicInteger();
    private final long initialRequest;

    /** @param initialRequest requested in {@code onSubscribe}; 0 for none */
    RecordingSubscriber(long initialRequest) {
        this.initialRequest = initialRequest;
    }

    Flow.Subscription subscription() {
        return ClientTestSupport.get(subscribed);
    }

    void request(long n) {
        requested.accumulateAndGet(n, (a, b) -> a + b < 0 ? Long.MAX_VALUE : a + b);
        subscription().request(n);
    }

    /** The next item, waiting for it. */
    T next() throws InterruptedException {
        T item = arrivals.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        if (item == null) {
            throw new AssertionError("no item within " + WAIT + "; got " + items.size() + " so far");
        }
        return item;
    }

    /** The end's failure (waiting for it), or an AssertionError when it completed. */
    Throwable error() {
        try {
            end.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            return e.getCause();
        } catch (Exception e) {
            throw new AssertionError("no end within " + WAIT, e);
        }
        throw new AssertionError("completed where an error was expected");
    }

    /** Waits for onComplete. */
    void awaitCompletion() {
        ClientTestSupport.get(end);
    }

    private void enter(String signal) {
        if (inside.incrementAndGet() != 1) {
            violations.add(signal + " while another signal ran");
        }
        if (end.isDone()) {
            violations.add(signal + " after the end");
        }
        // The client's own pool runs the lanes; the connection's reader (and the test's thread) never signal.
        if (!Thread.currentThread().getName().startsWith("codex-shared-callback-")) {
            violations.add(signal + " on " + Thread.currentThread().getName());
        }
    }

    private void leave() {
        inside.decrementAndGet();
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        enter("onSubscribe");
        // The initial request first: a test that waits for the subscription and then makes the source emit must
        // find the demand in place, or what it emits waits beyond the demand (and may be merged) for a while.
        if (initialRequest > 0) {
            requested.addAndGet(initialRequest);
            s.request(initialRequest);
        }
        subscribed.complete(s);
        leave();
    }

    @Override
    public void onNext(T item) {
        enter("onNext");
        if (items.size() + 1 > requested.get()) {
            violations.add("onNext #" + (items.size() + 1) + " beyond the " + requested.get() + " requested");
        }
        items.add(item);
        onItem(item);
        arrivals.add(item);
        leave();
    }

    /** Runs inside onNext, after the item was recorded. */
    void onItem(T item) {
    }

    @Override
    public void onError(Throwable t) {
        enter("onError");
        end.completeExceptionally(t);
        leave();
    }

    @Override
    public void onComplete() {
        enter("onComplete");
        end.complete(null);
        leave();
    }
}
