package dev.codexclient.agent;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexClientBuilder;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.DynamicTool;
import dev.codexclient.Inputs;
import dev.codexclient.StructuredTurn;
import dev.codexclient.TurnResult;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexOutputParseException;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.protocol.TurnStartParams;
import dev.codexclient.protocol.TurnStatus;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs {@link AgentRun agent runs}: each run gets a client (by default spawning {@code codex app-server} over
 * stdio), starts or resumes its thread in the run's working directory with the run's dynamic tools, starts one turn
 * with the prompt, watches it against the budget and the deadline, and lets go of the thread.
 *
 * <pre>{@code
 * try (AgentRunner runner = AgentRunner.builder()
 *         .client(() -> CodexClient.builder().codexBinary(codex).telemetryListener(audit))
 *         .sessions(SessionStore.inDirectory(stateDir))
 *         .warmClient(true)
 *         .build()) {
 *     AgentResult<Verdict> result = runner.run(run);
 * }
 * }</pre>
 *
 * <p><b>One client per run, or a warm one.</b> By default each run builds its own client from the
 * {@link Builder#client supplier} and closes it after the run, which ends its server: a run pays a server start.
 * With {@link Builder#warmClient(boolean) warmClient(true)} the runner keeps one client between runs and serves
 * every run with it, concurrent ones included: codex declares dynamic tools per thread ({@code dynamicTools} on
 * {@code thread/start}) and names the thread in each tool call and approval request, so each run's thread has the
 * run's tools and approval policy, as do its working directory, sandbox, model and MCP servers. What a thread cannot
 * carry is the server's own (the executable, the environment its commands see, {@code CODEX_HOME}, the login, the
 * transport): the supplier fixes those for all runs of a runner, so runs that need other server settings need
 * another runner. The warm client is replaced when its server ended, and retired (closed when its last run ends)
 * when a turn did not end within the {@link Builder#interruptWait interrupt wait}. {@link #close()} closes it.
 *
 * <p><b>One turn per run, a thread per session.</b> A run with a {@link AgentRun.Builder#sessionKey session key}
 * resumes the stored thread when the {@link SessionEntry stored entry} matches the run: a run in a workspace by the
 * workspace's fingerprint (the same mounts and content, whatever its directory), a run in a host directory by that
 * directory, and the same dynamic tools (codex keeps the tools a thread was started with). Otherwise, or when
 * {@code thread/resume} fails, it starts a new thread and stores it in place of the old. Codex keeps threads in its
 * home directory ({@code CODEX_HOME}): with a {@link SessionStore#inDirectory file store} and one {@code CODEX_HOME},
 * a run in another process resumes them, and codex is told the new working directory. Runs with one key must not
 * overlap.
 *
 * <p><b>Budgets and deadlines.</b> A deadline already passed fails the run before a client is taken. During the
 * turn, the usage codex reports ({@code thread/tokenUsage/updated}) is counted against the {@link TokenBudget}; a
 * crossed budget or the deadline interrupts the turn, waits for it at most the
 * {@link Builder#interruptWait(Duration) interrupt wait}, and fails the run with an
 * {@link AgentBudgetExceededException} carrying the usage so far and the limit's value. A dynamic tool that throws
 * interrupts the run the same way and fails it in {@link FailurePhase#TOOL}.
 *
 * <p><b>Failures</b> are {@link AgentRunException}s by {@link FailurePhase phase}, with the server's stderr tail.
 * Every text the runner builds (messages, a failed turn's details, the stderr tail, tool invocations, log lines)
 * passes through the client's masking ({@link CodexClient#mask}), so a secret given to
 * {@link CodexClientBuilder#secret} never shows in them, even when the model's provider echoes it back.
 * <b>Telemetry</b> ({@link AgentRunTelemetry}) goes to the listener of the run's client. A runner is safe for
 * concurrent runs.
 */
public final class AgentRunner implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AgentRunner.class);
    private static final AtomicLong RUNS = new AtomicLong();
    /** The longest wait for the events of an ended turn to reach the run (they are already received). */
    private static final Duration DRAIN_WAIT = Duration.ofSeconds(5);

    private final RunClients clients;
    private final ThreadOpener opener;
    private final SessionStore sessions;
    private final Clock clock;
    private final Duration interruptWait;

    private AgentRunner(Builder b) {
        this.clients = new RunClients(b.client, b.warm);
        this.sessions = b.sessions;
        this.opener = new ThreadOpener(b.sessions);
        this.clock = b.clock;
        this.interruptWait = b.interruptWait;
    }

    /**
     * A builder of a runner.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The runner's session store.
     *
     * @return the store
     */
    public SessionStore sessions() {
        return sessions;
    }

    /**
     * Runs {@code run} and waits for its end.
     *
     * @param <T> the output type
     * @param run the run
     * @return what the run produced
     * @throws AgentBudgetExceededException when a budget or the deadline was crossed, or codex reported a usage
     *                                      limit or a model cap
     * @throws AgentRunException            when the run failed otherwise, in the phase it says
     * @throws IllegalStateException        when the run's workspace or the runner is closed
     */
    public <T> AgentResult<T> run(AgentRun<T> run) {
        Objects.requireNonNull(run, "run");
        Instant start = clock.instant();
        Instant deadline = deadlineOf(run, start);
        if (deadline != null && !start.isBefore(deadline)) {
            throw AgentBudgetExceededException.deadline(deadline,
                    "the run's deadline " + deadline + " passed before it started", AgentRunException.Details.NONE);
        }
        if (run.workspace().map(Workspace::isClosed).orElse(false)) {
            throw new IllegalStateException("the run's workspace is closed");
        }
        long startNanos = System.nanoTime();
        RunTracker tracker = new RunTracker("run-" + RUNS.incrementAndGet(), run.budget().orElse(null));
        RunClients.Lease lease;
        try {
            lease = clients.acquire(!run.tools().isEmpty());
        } catch (CodexException e) {
            // No client: the builder's own masking already applied to what its failure says.
            throw new AgentRunException(FailurePhase.REQUEST, "codex could not be started: " + e.getMessage(), e,
                    new AgentRunException.Details(Optional.empty(), Optional.empty(),
                            e instanceof CodexTransportException te ? te.stderrTail() : "", Optional.empty(),
                            Optional.empty()));
        }
        CodexClient codex = lease.client();
        tracker.attach(codex);
        RunFailures failures = new RunFailures(codex, tracker);
        List<DynamicTool> tools = run.tools().stream().map(tracker::watch).toList();
        CodexThread thread = null;
        Optional<FailurePhase> failure = Optional.of(FailurePhase.REQUEST);
        try {
            ThreadOpener.Opened opened = opener.open(codex, run, tools, tracker, failures);
            thread = opened.thread();
            lease.routes().add(thread.id(), run.approvals());
            codex.publishTelemetry(new AgentRunTelemetry.Started(tracker.runId(), thread.id(), opened.resumed()));
            AgentResult<T> result = turn(codex, tracker, failures, run, opened, deadline);
            failure = Optional.empty();
            return result;
        } catch (AgentRunException e) {
            failure = Optional.of(e.phase());
            throw e;
        } finally {
            codex.publishTelemetry(new AgentRunTelemetry.Completed(tracker.runId(),
                    Optional.ofNullable(thread).map(CodexThread::id), tracker.usage(),
                    Duration.ofNanos(System.nanoTime() - startNanos), failure));
            end(lease, thread, tracker);
        }
    }

    /**
     * Gives the client back; a client that outlives the run first lets go of the run's thread, so that a warm
     * server does not keep every thread it ever ran and a later run may resume this one.
     */
    private void end(RunClients.Lease lease, CodexThread thread, RunTracker tracker) {
        try {
            if (thread != null) {
                lease.routes().remove(thread.id());
                if (lease.shared() && !tracker.abandoned() && !lease.client().isClosed()) {
                    try {
                        thread.unsubscribe();
                    } catch (CodexException e) {
                        LOG.debug("run {}: letting go of thread {} failed: {}", tracker.runId(), thread.id(),
                                lease.client().mask(e.getMessage()));
                    }
                }
            }
        } finally {
            lease.release(tracker.abandoned());
        }
    }

    private Instant deadlineOf(AgentRun<?> run, Instant start) {
        Instant deadline = run.deadline().orElse(null);
        if (run.timeout().isPresent()) {
            Instant byTimeout = start.plus(run.timeout().get());
            deadline = deadline == null || byTimeout.isBefore(deadline) ? byTimeout : deadline;
        }
        return deadline;
    }

    @SuppressWarnings("deprecation") // personality: codex marks it deprecated, yet still takes it
    private <T> AgentResult<T> turn(CodexClient codex, RunTracker tracker, RunFailures failures, AgentRun<T> run,
                                    ThreadOpener.Opened opened, Instant deadline) {
        CodexThread thread = opened.thread();
        TurnStartParams.Builder params = thread.turnParams().input(List.of(Inputs.text(run.prompt())));
        ModelConfig model = run.model();
        model.model().ifPresent(params::model);
        model.effort().ifPresent(e -> params.effort(e.wire()));
        model.summary().ifPresent(params::summary);
        model.personality().ifPresent(params::personality);
        CodexTurn turn;
        StructuredTurn<T> structured = null;
        try {
            if (run.outputType().isPresent()) {
                structured = thread.startTurn(params, run.outputType().get());
                turn = structured.turn();
            } else {
                turn = thread.startTurn(params.build());
            }
        } catch (CodexException e) {
            throw failures.failure(FailurePhase.REQUEST, "the turn could not be started: " + e.getMessage(), e,
                    thread.id());
        }
        turn.onEvent(tracker::onEvent);
        TurnResult result = awaitTurn(turn, tracker, failures, deadline, thread.id());
        if (result.status().equals(TurnStatus.FAILED)) {
            throw TurnFailures.of(result.error(), codex.serverStderrTail(), tracker.usage(), tracker.reported(),
                    thread.id(), failures::mask);
        }
        if (!result.status().equals(TurnStatus.COMPLETED)) {
            throw failures.failure(FailurePhase.RESPONSE, "the turn ended " + result.status().asString()
                    + (result.stalled() ? " (codex stopped answering)" : "") + " before completing", null,
                    thread.id());
        }
        Optional<T> output = Optional.empty();
        if (structured != null) {
            try {
                output = Optional.of(structured.parse(result));
            } catch (CodexOutputParseException e) {
                throw failures.failure(FailurePhase.RESPONSE, "the final message does not parse as "
                        + run.outputType().get().getName() + ": " + e.getMessage(), e, thread.id());
            }
        }
        return new AgentResult<>(thread.id(), opened.resumed(), result.finalText(), output, tracker.usage(),
                tracker.threadUsage(), tracker.invocations());
    }

    /**
     * Waits for the turn, the budget and the deadline, whichever ends first; a crossed budget or deadline (or a
     * tool that threw) interrupts the turn and waits for it at most the interrupt wait.
     */
    private TurnResult awaitTurn(CodexTurn turn, RunTracker tracker, RunFailures failures, Instant deadline,
                                 String threadId) {
        CompletableFuture<TurnResult> result = turn.result();
        CompletableFuture<Object> first = CompletableFuture.anyOf(result, tracker.stop());
        boolean deadlinePassed = false;
        try {
            if (deadline == null) {
                first.get();
            } else {
                long nanos = Duration.between(clock.instant(), deadline).toNanos();
                first.get(Math.max(0, nanos), TimeUnit.NANOSECONDS);
            }
        } catch (TimeoutException e) {
            deadlinePassed = true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            turn.interruptAsync();
            throw failures.failure(FailurePhase.RESPONSE, "the thread waiting for the run was interrupted", e,
                    threadId);
        } catch (ExecutionException e) {
            // Only the turn's future fails: the connection ended or the thread was let go of.
            throw failures.failure(FailurePhase.RESPONSE, "the turn could not complete: "
                    + e.getCause().getMessage(), e.getCause(), threadId);
        }
        RunTracker.Stop stop = deadlinePassed ? null : tracker.stop().getNow(null);
        if (!deadlinePassed && stop == null) {
            TurnResult done = result.join();
            drain(tracker, result);
            return done;
        }
        if (!result.isDone()) {
            turn.interruptAsync();
            try {
                result.get(interruptWait.toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                tracker.abandon();
                LOG.warn("run {}: the turn did not end within {} of its interrupt; ending codex", tracker.runId(),
                        interruptWait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException e) {
                LOG.debug("run {}: the interrupted turn ended with {}", tracker.runId(),
                        failures.mask(e.getCause().toString()));
            }
        }
        drain(tracker, result);
        AgentRunException.Details details = failures.details(failures.tail(null), threadId);
        if (deadlinePassed) {
            throw AgentBudgetExceededException.deadline(deadline, "the run passed its deadline " + deadline,
                    details);
        }
        if (stop.phase() == FailurePhase.BUDGET) {
            throw AgentBudgetExceededException.tokens(stop.limit(), stop.tokenLimit(), failures.mask(stop.message()),
                    details);
        }
        throw new AgentRunException(stop.phase(), failures.mask(stop.message()), stop.cause(), details);
    }

    /**
     * Waits (boundedly) until the tracker has had every event of a turn that ended with {@code turn/completed}, so
     * usage and invocations are complete; a turn that did not (stalled, still running, connection lost) has no
     * such event to wait for.
     */
    private void drain(RunTracker tracker, CompletableFuture<TurnResult> result) {
        TurnResult ended = result.isDone() && !result.isCompletedExceptionally() ? result.join() : null;
        if (ended == null || ended.stalled()) {
            return;
        }
        try {
            tracker.sawEnd().get(Math.min(interruptWait.toMillis(), DRAIN_WAIT.toMillis()), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            LOG.debug("run {}: the turn ended without turn/completed reaching the run", tracker.runId());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Closes the warm client, if there is one: at once when no run is using it, else when the last run ends (runs
     * in progress are not cut short). Runs started after this fail with an {@link IllegalStateException}.
     * Idempotent; a runner without a warm client has nothing to close.
     */
    @Override
    public void close() {
        clients.close();
    }

    /** Builds an {@link AgentRunner}. */
    public static final class Builder {
        private Supplier<CodexClientBuilder> client = CodexClient::builder;
        private SessionStore sessions = SessionStore.inMemory();
        private Clock clock = Clock.systemUTC();
        private Duration interruptWait = Duration.ofSeconds(10);
        private boolean warm;

        private Builder() {
        }

        /**
         * The client of the runs, configured but not built: where codex comes from (the executable, its home, its
         * environment, or another transport), timeouts, client info, login, secrets to mask, and the
         * {@link CodexClientBuilder#telemetryListener telemetry listener}, which also gets the
         * {@link AgentRunTelemetry run telemetry}. The runner sets the approval policy (each run's answers its own
         * thread's requests; a policy set here is replaced) and builds it; each run's tools are its thread's own
         * ({@link CodexClient#startThread(dev.codexclient.protocol.ThreadStartParams, List)}), and tools declared
         * here are offered to every run. By default a client spawning {@code codex} from the PATH.
         *
         * @param builders called for a fresh builder each time the runner builds a client: once per run, or once
         *                 per warm client
         * @return this builder
         */
        public Builder client(Supplier<CodexClientBuilder> builders) {
            this.client = Objects.requireNonNull(builders, "builders");
            return this;
        }

        /**
         * Whether the runner keeps one client (and its server) between runs rather than building one per run; off
         * by default. The warm client is built on the first run, always with codex's experimental API on (dynamic
         * tools need it), serves concurrent runs too, and is closed by {@link AgentRunner#close()}. See the class
         * comment for what runs share on it.
         *
         * @param warm true to keep a warm client
         * @return this builder
         */
        public Builder warmClient(boolean warm) {
            this.warm = warm;
            return this;
        }

        /**
         * Where runs with a session key keep their thread; {@link SessionStore#inMemory()} by default.
         *
         * @param store the store
         * @return this builder
         */
        public Builder sessions(SessionStore store) {
            this.sessions = Objects.requireNonNull(store, "store");
            return this;
        }

        /**
         * The clock that deadlines are read on; the system's by default.
         *
         * @param clock the clock
         * @return this builder
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * How long a run waits for its turn to end after interrupting it (budget, deadline, failed tool) before it
         * fails anyway, ending its client (a warm one when its last run ends); 10 seconds by default.
         *
         * @param wait a positive duration
         * @return this builder
         */
        public Builder interruptWait(Duration wait) {
            Objects.requireNonNull(wait, "wait");
            if (wait.isNegative() || wait.isZero()) {
                throw new IllegalArgumentException("the interrupt wait must be positive: " + wait);
            }
            this.interruptWait = wait;
            return this;
        }

        /**
         * Builds the runner.
         *
         * @return the runner
         */
        public AgentRunner build() {
            return new AgentRunner(this);
        }
    }
}
