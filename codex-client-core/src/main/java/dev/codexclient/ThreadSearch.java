package dev.codexclient;

import dev.codexclient.errors.CodexDeadlockException;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexMethodNotSupportedException;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.internal.session.ThreadSearchEngine;
import dev.codexclient.internal.session.WaitGuardedFuture;
import dev.codexclient.protocol.RequestId;
import dev.codexclient.protocol.ThreadSearchResponse;
import dev.codexclient.protocol.ThreadSearchResult;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;

/**
 * A streamed search of the stored threads ({@code thread/search/stream}, codex 0.171.0 and later), from
 * {@link CodexClient#searchThreads}: provisional rows as codex finds them, then the final page.
 *
 * <pre>{@code
 * try (ThreadSearch search = codex.searchThreads("invoice")) {
 *     for (ThreadSearchResult row : search) {         // partial rows as they come; ends with the search
 *         show(row.thread().id(), row.snippet());
 *     }
 *     ThreadSearchResponse page = search.await(Duration.ofSeconds(30));   // the authoritative page
 * }
 * }</pre>
 *
 * <p>codex sends partial rows best effort: a few of the matches, in the order found, possibly none (a quick search
 * sends none), never after the final page, which is authoritative and may order, enrich or leave out what the
 * partials showed. The search keeps the partial rows, up to the client's
 * {@link CodexClientBuilder#publisherBufferSize publisher buffer size}; rows beyond it are dropped and counted
 * ({@link #droppedRows()}), since the final page has them anyway. Every iteration and every subscriber of
 * {@link #publisher()} reads the kept rows from the first, so none can fall behind and overflow.
 *
 * <p>{@link #cancel()} sends {@code thread/search/stream/cancel}; the search then ends cancelled
 * ({@link #result()} fails with a {@link CancellationException}), unless codex had already answered.
 * {@link #close()} cancels a search that is still running and ends the iterations. A search the server's codex
 * certainly lacks (an older version the SDK checked) fails at once with {@link CodexMethodNotSupportedException},
 * unsent; the method is experimental, so the client needs {@code experimentalApi(true)}.
 *
 * <p>Threading: rows and the end are delivered on the client's delivery lane for notifications that belong to no
 * thread, after every partial codex sent before its answer. Waiting for a search there (in a client notification
 * listener) fails with {@link CodexDeadlockException}.
 */
@CodexExperimental("thread/search/stream")
public final class ThreadSearch implements Iterable<ThreadSearchResult>, AutoCloseable {
    private final ThreadSearchEngine engine;

    ThreadSearch(ThreadSearchEngine engine) {
        this.engine = engine;
    }

    /**
     * {@return the id of the {@code thread/search/stream} request, which its partial rows carry} Empty while the
     * request waits for a connection (during a restart) or when it was refused unsent.
     */
    public Optional<RequestId> requestId() {
        return Optional.ofNullable(engine.requestId());
    }

    /**
     * {@return the partial rows kept, from the first, blocking for the next until the search ends} Iterable as
     * often as needed; each iteration starts from the first row. It ends when the search ends (whatever its
     * outcome: {@link #result()} tells), or when the search is closed.
     *
     * @throws CodexDeadlockException from {@code hasNext()} on the lane that delivers the rows
     */
    @Override
    public Iterator<ThreadSearchResult> iterator() {
        return engine.iterator();
    }

    /**
     * {@return the partial rows as a publisher} Each subscriber gets the kept rows from the first, then the live
     * ones; it completes after the last partial once the search succeeded, and fails with the search's failure
     * ({@link CancellationException} when cancelled). Cancelling a subscription does not cancel the search.
     */
    public Flow.Publisher<ThreadSearchResult> publisher() {
        return engine.publisher();
    }

    /** {@return the partial rows received so far, at most the buffer's size} */
    public List<ThreadSearchResult> partialRows() {
        return engine.rows();
    }

    /** {@return how many partial rows were dropped because the buffer was full} */
    public long droppedRows() {
        return engine.droppedRows();
    }

    /**
     * {@return the final page} Completes after every partial row that preceded it was taken; fails with the
     * search's failure: a {@link CodexException} (such as {@link CodexMethodNotSupportedException}), or a
     * {@link CancellationException} when the search was cancelled. Each call returns a new future, so cancelling
     * one does not cancel the search ({@link #cancel()} does).
     */
    public CompletableFuture<ThreadSearchResponse> result() {
        WaitGuardedFuture<ThreadSearchResponse> copy = new WaitGuardedFuture<>(
                () -> engine.checkMayAwait("waiting for the result of a thread search"));
        engine.outcome().whenComplete((r, e) -> {
            if (e == null) {
                copy.complete(r);
            } else {
                copy.completeExceptionally(e);
            }
        });
        return copy;
    }

    /**
     * Waits for the final page.
     *
     * @param timeout the longest wait (the request's own timeout also applies)
     * @return the final page
     * @throws CancellationException when the search was cancelled
     * @throws CodexTimeoutException when the search is still running after {@code timeout} (it keeps running)
     * @throws CodexDeadlockException on the lane that delivers the search's end
     */
    public ThreadSearchResponse await(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        return engine.await(timeout);
    }

    /**
     * Asks codex to stop the search ({@code thread/search/stream/cancel}), unless it has ended; calling it again
     * changes nothing.
     *
     * @return completes when codex acknowledged the cancel, at once when there was nothing to cancel
     */
    public CompletableFuture<Void> cancel() {
        return engine.cancel();
    }

    /** {@return whether the search has ended: answered, failed or cancelled} */
    public boolean isDone() {
        return engine.isDone();
    }

    /** Cancels the search if it still runs, without waiting, and ends the iterations. */
    @Override
    public void close() {
        engine.close();
    }

    @Override
    public String toString() {
        return "ThreadSearch[" + requestId().map(RequestId::toString).orElse("unsent")
                + (isDone() ? ", done" : "") + "]";
    }
}
