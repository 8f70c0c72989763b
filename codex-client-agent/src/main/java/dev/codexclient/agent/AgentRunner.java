package dev.codexclient.agent;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.CodexClient;
import dev.codexclient.IntegrationTelemetry;
import dev.codexclient.CodexClientBuilder;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.Inputs;
import dev.codexclient.StructuredTurn;
import dev.codexclient.TurnResult;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexOutputParseException;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.protocol.ThreadResumeParams;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.protocol.TurnStartParams;
import dev.codexclient.protocol.TurnStatus;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * Runs {@link AgentRun agent runs}: each run builds its own client (by default spawning {@code codex app-server}
 * over stdio) with the run's dynamic tools and approval policy, starts or resumes the run's thread in the run's
 * working directory, starts one turn with the prompt, watches it against the budget and the deadline, and closes
 * the client (ending a spawned server).
 *
 * <pre>{@code
 * AgentRunner runner = AgentRunner.builder()
 *         .client(() -> CodexClient.builder().codexBinary(codex).telemetryListener(audit))
 *         .sessions(SessionStore.inDirectory(stateDir))
 *         .build();
 * AgentResult<Verdict> result = runner.run(run);
 * }</pre>
 *
 * <p><b>One turn per run, a thread per session.</b> A run with a {@link AgentRun.Builder#sessionKey session key}
 * resumes the stored thread only when it runs in the same directory with the same workspace fingerprint; else, or
 * when {@code thread/resume} fails, it starts a new thread and stores it in place of the old. Codex keeps threads
 * in its home directory ({@code CODEX_HOME}), so a later process resumes them; a workspace kept open across runs
 * keeps its directory and fingerprint.
 *
 * <p><b>Budgets and deadlines.</b> A deadline already passed fails the run before codex is started. During the
 * turn, the usage codex reports ({@code thread/tokenUsage/updated}) is counted against the {@link TokenBudget}; a
 * crossed budget or the deadline interrupts the turn, waits for it at most the
 * {@link Builder#interruptWait(Duration) interrupt wait}, and fails the run with an
 * {@link AgentBudgetExceededException} carrying the usage so far. A dynamic tool that throws interrupts the run the
 * same way and fails it in {@link FailurePhase#TOOL}.
 *
 * <p><b>Failures</b> are {@link AgentRunException}s by {@link FailurePhase phase}, with the server's stderr tail.
 * <b>Events</b> ({@link AgentRunTelemetry}) go to the listener of the run's client
 * ({@link Builder#client(Supplier)}). A runner is safe for concurrent runs; each has its own server.
 */
public final class AgentRunner {
    private static final Logger LOG = LoggerFactory.getLogger(AgentRunner.class);
    private static final AtomicLong RUNS = new AtomicLong();
    /** The longest wait for the events of an ended turn to reach the run (they are already received). */
    private static final Duration DRAIN_WAIT = Duration.ofSeconds(5);

    private final Supplier<CodexClientBuilder> client;
    private final SessionStore sessions;
    private final Clock clock;
    private final Duration interruptWait;

    private AgentRunner(Builder b) {
        this.client = b.client;
        this.sessions = b.sessions;
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
     * @throws IllegalStateException        when the run's workspace is closed
     */
    public <T> AgentResult<T> run(AgentRun<T> run) {
        Objects.requireNonNull(run, "run");
        Instant start = clock.instant();
        Instant deadline = deadlineOf(run, start);
        if (deadline != null && !start.isBefore(deadline)) {
            throw new AgentBudgetExceededException(AgentBudgetExceededException.Limit.DEADLINE,
                    "the run's deadline " + deadline + " passed before it started", null, null,
                    AgentRunException.Details.NONE);
        }
        if (run.workspace().map(Workspace::isClosed).orElse(false)) {
            throw new IllegalStateException("the run's workspace is closed");
        }
        long startNanos = System.nanoTime();
        RunTracker tracker = new RunTracker("run-" + RUNS.incrementAndGet(), run.budget().orElse(null));
        Path cwd = run.workingDirectory();
        CodexClient codex;
        try {
            CodexClientBuilder b = Objects.requireNonNull(client.get(), "the client supplier returned null");
            b.approvals(run.approvals());
            if (!run.tools().isEmpty()) {
                b.experimentalApi(true);
                run.tools().forEach(t -> b.tool(tracker.watch(t)));
            }
            codex = b.build();
        } catch (CodexException e) {
            throw new AgentRunException(FailurePhase.REQUEST, "codex could not be started: " + e.getMessage(), e,
                    details(tail(e, null), tracker, null));
        }
        tracker.attach(codex);
        String threadId = null;
        Optional<FailurePhase> failure = Optional.of(FailurePhase.REQUEST);
        try {
            Opened opened = open(codex, tracker, run, cwd);
            threadId = opened.thread.id();
            IntegrationTelemetry.publish(codex,
                    new AgentRunTelemetry.Started(tracker.runId(), threadId, opened.resumed));
            AgentResult<T> result = turn(codex, tracker, run, opened, deadline);
            failure = Optional.empty();
            return result;
        } catch (AgentRunException e) {
            failure = Optional.of(e.phase());
            throw e;
        } finally {
            IntegrationTelemetry.publish(codex, new AgentRunTelemetry.Completed(tracker.runId(),
                    Optional.ofNullable(threadId), tracker.usage(), Duration.ofNanos(System.nanoTime() - startNanos),
                    failure));
            codex.close();
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

    /** The thread of a run and whether it was resumed. */
    private record Opened(CodexThread thread, boolean resumed) {
    }

    private Opened open(CodexClient codex, RunTracker tracker, AgentRun<?> run, Path cwd) {
        String fingerprint = run.workspace().map(Workspace::fingerprint).orElse("");
        Map<String, JsonNode> config = new LinkedHashMap<>();
        if (!run.mcpServers().isEmpty()) {
            var servers = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
            run.mcpServers().forEach(s -> servers.set(s.name(), s.config()));
            config.put("mcp_servers", servers);
        }
        Optional<String> key = run.ephemeral() ? Optional.empty() : run.sessionKey();
        Optional<SessionEntry> stored = key.flatMap(sessions::load);
        if (stored.isPresent() && stored.get().matches(cwd.toString(), fingerprint)) {
            try {
                ThreadResumeParams.Builder p = ThreadResumeParams.builder().threadId(stored.get().threadId())
                        .cwd(cwd.toString()).approvalPolicy(run.askForApproval()).sandbox(run.sandbox());
                run.model().model().ifPresent(p::model);
                if (!config.isEmpty()) {
                    p.config(config);
                }
                return new Opened(codex.resumeThread(p.build()), true);
            } catch (CodexException e) {
                LOG.info("run {}: resuming thread {} failed ({}); starting a new thread", tracker.runId(),
                        stored.get().threadId(), e.getMessage());
            }
        }
        try {
            ThreadStartParams.Builder p = ThreadStartParams.builder().cwd(cwd.toString())
                    .approvalPolicy(run.askForApproval()).sandbox(run.sandbox());
            if (run.ephemeral()) {
                p.ephemeral(true);
            }
            run.model().model().ifPresent(p::model);
            if (!config.isEmpty()) {
                p.config(config);
            }
            CodexThread thread = codex.startThread(p.build());
            key.ifPresent(k -> sessions.save(k, new SessionEntry(thread.id(), cwd.toString(), fingerprint,
                    codex.serverInfo().codexVersion().map(Object::toString).orElse(""))));
            return new Opened(thread, false);
        } catch (CodexException e) {
            throw new AgentRunException(FailurePhase.REQUEST, "the thread could not be started: " + e.getMessage(),
                    e, details(tail(e, codex), tracker, null));
        }
    }

    @SuppressWarnings("deprecation") // personality: codex marks it deprecated, yet still takes it
    private <T> AgentResult<T> turn(CodexClient codex, RunTracker tracker, AgentRun<T> run, Opened opened,
                                    Instant deadline) {
        CodexThread thread = opened.thread;
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
            throw new AgentRunException(FailurePhase.REQUEST, "the turn could not be started: " + e.getMessage(), e,
                    details(tail(e, codex), tracker, thread.id()));
        }
        turn.onEvent(tracker::onEvent);
        TurnResult result = awaitTurn(turn, codex, tracker, deadline, thread.id());
        if (result.status().equals(TurnStatus.FAILED)) {
            throw TurnFailures.of(result.error(), codex.serverStderrTail(), tracker.usage(), tracker.reported(),
                    thread.id());
        }
        if (!result.status().equals(TurnStatus.COMPLETED)) {
            throw new AgentRunException(FailurePhase.RESPONSE, "the turn ended " + result.status().asString()
                    + (result.stalled() ? " (codex stopped answering)" : "") + " before completing", null,
                    details(codex.serverStderrTail(), tracker, thread.id()));
        }
        Optional<T> output = Optional.empty();
        if (structured != null) {
            try {
                output = Optional.of(structured.parse(result));
            } catch (CodexOutputParseException e) {
                throw new AgentRunException(FailurePhase.RESPONSE, "the final message does not parse as "
                        + run.outputType().get().getName() + ": " + e.getMessage(), e,
                        details(codex.serverStderrTail(), tracker, thread.id()));
            }
        }
        return new AgentResult<>(thread.id(), opened.resumed, result.finalText(), output, tracker.usage(),
                tracker.threadUsage(), tracker.invocations());
    }

    /**
     * Waits for the turn, the budget and the deadline, whichever ends first; a crossed budget or deadline (or a
     * tool that threw) interrupts the turn and waits for it at most the interrupt wait.
     */
    private TurnResult awaitTurn(CodexTurn turn, CodexClient codex, RunTracker tracker, Instant deadline,
                                 String threadId) {
        CompletableFuture<TurnResult> result = turn.result();
        CompletableFuture<Object> first = CompletableFuture.anyOf(result, tracker.stop());
        RunTracker.Stop stop = null;
        try {
            if (deadline == null) {
                first.get();
            } else {
                long nanos = Duration.between(clock.instant(), deadline).toNanos();
                first.get(Math.max(0, nanos), TimeUnit.NANOSECONDS);
            }
        } catch (TimeoutException e) {
            stop = new RunTracker.Stop(FailurePhase.BUDGET, AgentBudgetExceededException.Limit.DEADLINE,
                    "the run passed its deadline " + deadline, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            turn.interruptAsync();
            throw new AgentRunException(FailurePhase.RESPONSE, "the thread waiting for the run was interrupted", e,
                    details(codex.serverStderrTail(), tracker, threadId));
        } catch (ExecutionException e) {
            // Only the turn's future fails: the connection ended or the thread was let go of.
            throw new AgentRunException(FailurePhase.RESPONSE, "the turn could not complete: "
                    + e.getCause().getMessage(), e.getCause(),
                    details(tail(e.getCause(), codex), tracker, threadId));
        }
        if (stop == null) {
            stop = tracker.stop().getNow(null);
        }
        if (stop == null) {
            TurnResult done = result.join();
            drain(tracker, result);
            return done;
        }
        if (!result.isDone()) {
            turn.interruptAsync();
            try {
                result.get(interruptWait.toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                LOG.warn("run {}: the turn did not end within {} of its interrupt; ending codex", tracker.runId(),
                        interruptWait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException e) {
                LOG.debug("run {}: the interrupted turn ended with {}", tracker.runId(), e.getCause().toString());
            }
        }
        drain(tracker, result);
        AgentRunException.Details details = details(codex.serverStderrTail(), tracker, threadId);
        if (stop.phase() == FailurePhase.BUDGET) {
            throw new AgentBudgetExceededException(stop.limit(), stop.message(), null, stop.cause(), details);
        }
        throw new AgentRunException(stop.phase(), stop.message(), stop.cause(), details);
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

    /** The stderr tail of a failure: the ended connection's own, else what the running server wrote. */
    private static String tail(Throwable e, CodexClient codex) {
        if (e instanceof CodexTransportException te && !te.stderrTail().isEmpty()) {
            return te.stderrTail();
        }
        return codex == null ? "" : codex.serverStderrTail();
    }

    private static AgentRunException.Details details(String stderrTail,
                                                     RunTracker tracker, String threadId) {
        return new AgentRunException.Details(Optional.empty(), Optional.empty(), stderrTail,
                tracker.reported() ? Optional.of(tracker.usage()) : Optional.empty(),
                Optional.ofNullable(threadId));
    }

    /** Builds an {@link AgentRunner}. */
    public static final class Builder {
        private Supplier<CodexClientBuilder> client = CodexClient::builder;
        private SessionStore sessions = SessionStore.inMemory();
        private Clock clock = Clock.systemUTC();
        private Duration interruptWait = Duration.ofSeconds(10);

        private Builder() {
        }

        /**
         * The client of each run, configured but not built: where codex comes from (the executable, its home, its
         * environment, or another transport), timeouts, client info, login, secrets to mask, and the
         * {@link CodexClientBuilder#telemetryListener telemetry listener}, which also gets the
         * {@link AgentRunTelemetry run events}. The run adds its dynamic tools and its approval policy and builds it;
         * the thread's working directory is the run's. By default a client spawning {@code codex} from the PATH.
         *
         * @param builders called once per run for a fresh builder
         * @return this builder
         */
        public Builder client(Supplier<CodexClientBuilder> builders) {
            this.client = Objects.requireNonNull(builders, "builders");
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
         * How long a run waits for its turn to end after interrupting it (budget, deadline, failed tool) before
         * it ends codex and fails anyway; 10 seconds by default.
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
