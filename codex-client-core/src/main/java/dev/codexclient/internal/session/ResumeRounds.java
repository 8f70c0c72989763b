package dev.codexclient.internal.session;

import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexServerRestartedException;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.telemetry.ThreadNotResumed;
import dev.codexclient.telemetry.ThreadResumed;
import dev.codexclient.internal.telemetry.TelemetryEmitter;
import dev.codexclient.internal.requests.ServerRequestCarryOver;
import dev.codexclient.internal.rpc.RpcConnection;
import dev.codexclient.protocol.ThreadResumeParams;
import dev.codexclient.protocol.ThreadInfo;
import dev.codexclient.protocol.ThreadResumeResponse;
import dev.codexclient.protocol.ThreadStatus;
import dev.codexclient.protocol.ThreadTurnsListParams;
import dev.codexclient.protocol.ThreadTurnsListResponse;
import dev.codexclient.protocol.Turn;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The resume rounds of one attempt to restart a connection: {@code thread/resume} of every thread held, on the new
 * connection before it becomes current, and what each answer means for the thread, its running turns and the server
 * requests carried over for it.
 *
 * <p>The first round resumes the threads held at the loss and those held now; each later round those taken hold of
 * while the previous one ran (a turn started during the restart), until a round finds none new. A thread the server
 * resumed is loaded on the new connection and its turns are settled from the server's report (they go on, complete,
 * or fail with {@link CodexServerRestartedException}); a thread the server no longer has (an ephemeral thread,
 * another {@code CODEX_HOME}) is let go. A transport failure fails the round, and so the attempt.
 *
 * <p>A restart costs the same after ten turns or ten thousand: where the server can leave them out
 * ({@link TurnPaging}), a thread is resumed without its turns, and only a thread with turns running at the loss
 * has its latest turns listed, as many as it had running and a few more, to settle them.
 *
 * <p>One instance serves one attempt: it counts what it resumed and what it could not, for the
 * {@link dev.codexclient.telemetry.RestartCompleted} of the attempt that succeeds.
 */
final class ResumeRounds {
    /** Resolved on first use, so loading the class looks up no SLF4J provider. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(ResumeRounds.class);
    }

    private final HeldThreads held;
    private final ServerRequestCarryOver carried;
    private final TelemetryEmitter telemetry;
    /**
     * Turns listed beyond those running at the loss: a turn another client started on the thread since then must
     * not push one of them out of the page.
     */
    static final int EXTRA_TURNS = 4;

    private final BiFunction<ConnectionSupervisor.Generation, ThreadResumeParams,
            CompletableFuture<ThreadResumeResponse>> resume;
    private final BiFunction<ConnectionSupervisor.Generation, ThreadTurnsListParams,
            CompletableFuture<ThreadTurnsListResponse>> turns;
    private final CodexTransportException cause;
    private int resumed;
    private int notResumed;

    /**
     * @param resume sends {@code thread/resume} on the given connection (the supervisor's one place it is sent from)
     * @param turns  sends {@code thread/turns/list} on the given connection
     * @param cause  the loss the restart ends, the cause of a turn the server no longer runs
     */
    ResumeRounds(HeldThreads held, ServerRequestCarryOver carried, TelemetryEmitter telemetry,
                  BiFunction<ConnectionSupervisor.Generation, ThreadResumeParams,
                          CompletableFuture<ThreadResumeResponse>> resume,
                  BiFunction<ConnectionSupervisor.Generation, ThreadTurnsListParams,
                          CompletableFuture<ThreadTurnsListResponse>> turns,
                  CodexTransportException cause) {
        this.held = held;
        this.carried = carried;
        this.telemetry = telemetry;
        this.resume = resume;
        this.turns = turns;
        this.cause = cause;
    }

    /** Resumes, round after round, the threads of {@code threadsAtLoss} and every thread held, on {@code g}. */
    CompletableFuture<Void> run(ConnectionSupervisor.Generation g, Set<String> threadsAtLoss) {
        Set<String> ids = new LinkedHashSet<>(threadsAtLoss);
        ids.addAll(held.ids());
        return round(g, ids, new HashSet<>());
    }

    /** How many threads the restart resumed. */
    synchronized int resumed() {
        return resumed;
    }

    /** How many threads the restart could not resume, and let go. */
    synchronized int notResumed() {
        return notResumed;
    }

    private CompletableFuture<Void> round(ConnectionSupervisor.Generation g, Set<String> ids, Set<String> done) {
        done.addAll(ids);
        return resumeAll(g, ids).thenCompose(v -> {
            Set<String> later = new LinkedHashSet<>(held.ids());
            later.removeAll(done);
            return later.isEmpty() ? CompletableFuture.completedFuture(null) : round(g, later, done);
        });
    }

    private CompletableFuture<Void> resumeAll(ConnectionSupervisor.Generation g, Set<String> ids) {
        List<CompletableFuture<Void>> resumes = new ArrayList<>();
        for (String id : ids) {
            CompletableFuture<ThreadInfo> resumed = g.paging.resume(id, p -> resume.apply(g, p))
                    .thenCompose(r -> withRunningTurns(g, id, r));
            resumes.add(resumed.handle((thread, e) -> {
                Throwable failure = e == null ? null : RpcConnection.unwrap(e);
                if (failure == null) {
                    resumed(g, id, thread);
                    return null;
                }
                if (failure instanceof CodexTransportException te) {
                    throw new CompletionException(te);
                }
                notResumed(id, failure);
                return null;
            }));
        }
        return CompletableFuture.allOf(resumes.toArray(CompletableFuture[]::new));
    }

    /**
     * The thread as the server reported it, with the turns that settle those running at the loss: the response's
     * own when it has them, else (turns left out) the thread's latest turns; when listing them fails for any reason
     * but a lost connection, the thread is resumed again with its turns.
     */
    private CompletableFuture<ThreadInfo> withRunningTurns(ConnectionSupervisor.Generation g, String id,
                                                           ThreadResumeResponse r) {
        ThreadInfo thread = r.thread();
        int running = held.runningTurns(id);
        if (thread == null || running == 0 || !g.paging.available()
                || thread.turns() != null && !thread.turns().isEmpty()) {
            return CompletableFuture.completedFuture(thread);
        }
        return turns.apply(g, g.paging.latest(id, running + EXTRA_TURNS)).handle((page, e) -> {
            if (e == null) {
                List<Turn> latest = page.data() == null ? List.of() : page.data();
                return CompletableFuture.completedFuture(thread.toBuilder().turns(latest).build());
            }
            Throwable failure = RpcConnection.unwrap(e);
            if (failure instanceof CodexTransportException te) {
                return CompletableFuture.<ThreadInfo>failedFuture(te);
            }
            Log.LOG.debug("listing the latest turns of thread {} failed ({}); resuming it with its turns", id,
                    failure.getMessage());
            return resume.apply(g, ThreadResumeParams.builder().threadId(id).build()).thenApply(
                    ThreadResumeResponse::thread);
        }).thenCompose(f -> f);
    }

    private void resumed(ConnectionSupervisor.Generation g, String id, ThreadInfo thread) {
        held.link(id).ifPresent(l -> l.loadedOn(g.number));
        if (thread != null) {
            held.resumed(thread, (threadId, turnId) -> new CodexServerRestartedException(threadId, turnId, cause));
        }
        if (thread == null || !(thread.status() instanceof ThreadStatus.Active)) {
            // Nothing runs on the thread: none of its requests will be sent again.
            carried.cancelThread(id);
        }
        synchronized (this) {
            resumed++;
        }
        if (telemetry.enabled()) {
            telemetry.emit(l -> l.threadResumed(new ThreadResumed(id)));
        }
    }

    /** The new server does not have the thread (an ephemeral thread, another {@code CODEX_HOME}). */
    private void notResumed(String id, Throwable failure) {
        Log.LOG.warn("could not resume thread {} on the new connection: {}", id, failure.getMessage());
        held.forget(id, "could not be resumed on the new connection: " + failure.getMessage());
        carried.cancelThread(id);
        synchronized (this) {
            notResumed++;
        }
        if (telemetry.enabled()) {
            CodexException why = failure instanceof CodexException ce ? ce
                    : new CodexException("thread/resume failed", failure);
            telemetry.emit(l -> l.threadNotResumed(new ThreadNotResumed(id, why)));
        }
    }
}
