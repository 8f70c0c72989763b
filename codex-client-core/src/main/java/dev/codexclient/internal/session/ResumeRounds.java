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
import dev.codexclient.protocol.ThreadResumeResponse;
import dev.codexclient.protocol.ThreadStatus;
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
    private final BiFunction<ConnectionSupervisor.Generation, ThreadResumeParams,
            CompletableFuture<ThreadResumeResponse>> resume;
    private final CodexTransportException cause;
    private int resumed;
    private int notResumed;

    /**
     * @param resume sends {@code thread/resume} on the given connection (the supervisor's one place it is sent from)
     * @param cause  the loss the restart ends, the cause of a turn the server no longer runs
     */
    ResumeRounds(HeldThreads held, ServerRequestCarryOver carried, TelemetryEmitter telemetry,
                  BiFunction<ConnectionSupervisor.Generation, ThreadResumeParams,
                          CompletableFuture<ThreadResumeResponse>> resume,
                  CodexTransportException cause) {
        this.held = held;
        this.carried = carried;
        this.telemetry = telemetry;
        this.resume = resume;
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
            resumes.add(resume.apply(g, ThreadResumeParams.builder().threadId(id).build()).handle((r, e) -> {
                Throwable failure = e == null ? null : RpcConnection.unwrap(e);
                if (failure == null) {
                    resumed(g, id, r);
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

    private void resumed(ConnectionSupervisor.Generation g, String id, ThreadResumeResponse r) {
        held.link(id).ifPresent(l -> l.loadedOn(g.number));
        if (r.thread() != null) {
            held.resumed(r.thread(), (threadId, turnId) -> new CodexServerRestartedException(threadId, turnId, cause));
        }
        if (r.thread() == null || !(r.thread().status() instanceof ThreadStatus.Active)) {
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
