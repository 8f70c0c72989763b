package dev.codexclient.spring.boot;

import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.telemetry.ConnectionClosed;
import dev.codexclient.telemetry.ConnectionOpened;
import dev.codexclient.telemetry.ConnectionReplaced;
import dev.codexclient.telemetry.Disconnected;
import dev.codexclient.telemetry.RestartGaveUp;
import dev.codexclient.telemetry.TurnEnded;
import dev.codexclient.telemetry.TurnStarted;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;

/**
 * Follows the auto-configured client's connection: logs a lost app-server at WARN, with its exit code and the tail of
 * what it wrote to stderr, and keeps what the health indicator reports (the cause of the loss, and whether a restart
 * policy is restarting the connection). A {@link CodexTelemetryListener} bean, so the client it is registered with is the
 * one the auto-configuration builds. First among the listeners, so what the application's own listeners do on an event
 * (check the health, say) already sees it.
 */
public final class CodexConnectionMonitor implements CodexTelemetryListener, Ordered {
    private static final Logger LOG = LoggerFactory.getLogger(CodexConnectionMonitor.class);

    /**
     * The connection as last seen.
     *
     * @param cause      why the last connection was lost, if it was
     * @param restarting whether a restart policy is restarting it
     */
    public record State(Optional<CodexException> cause, boolean restarting) {
        /**
         * Checks that the cause is present.
         *
         * @param cause      why the last connection was lost, if it was
         * @param restarting whether a restart policy is restarting it
         */
        public State {
            java.util.Objects.requireNonNull(cause, "cause");
        }
    }

    private volatile State state = new State(Optional.empty(), false);
    private volatile boolean attached;
    /** Turns started and not yet ended; guarded by this. */
    private int runningTurns;

    /** A monitor that has seen nothing yet. */
    public CodexConnectionMonitor() {
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    /** {@return the connection as last seen} */
    public State state() {
        return state;
    }

    /** {@return whether a client told this monitor of its connection} */
    public boolean attached() {
        return attached;
    }

    @Override
    public void connectionOpened(ConnectionOpened event) {
        attached = true;
    }

    /** {@return how many turns run now} */
    public synchronized int runningTurns() {
        return runningTurns;
    }

    /**
     * Waits until no turn runs, at most {@code timeout}.
     *
     * @param timeout the bound of the wait
     * @return whether no turn runs
     * @throws InterruptedException when interrupted while waiting
     */
    public synchronized boolean awaitNoRunningTurns(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (runningTurns > 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }

    @Override
    public synchronized void turnStarted(TurnStarted event) {
        runningTurns++;
    }

    @Override
    public synchronized void turnEnded(TurnEnded event) {
        runningTurns = Math.max(0, runningTurns - 1);
        if (runningTurns == 0) {
            notifyAll();
        }
    }

    @Override
    public void disconnected(Disconnected event) {
        state = new State(Optional.of(event.cause()), true);
        // The client logs the loss at WARN itself under a restart policy; this line only adds the property's name.
        LOG.debug("codex: lost the app-server{}; restarting it (codex.restart), {} thread(s) to resume",
                describe(event.cause()), event.heldThreads());
    }

    @Override
    public void connectionReplaced(ConnectionReplaced event) {
        state = new State(Optional.empty(), false);
        LOG.info("codex: app-server restarted after {} attempt(s), {} ms down", event.attempt(),
                event.downtime().toMillis());
    }

    @Override
    public void restartGaveUp(RestartGaveUp event) {
        state = new State(Optional.of(event.cause()), false);
        LOG.warn("codex: gave up restarting the app-server after {} attempt(s){}", event.attempts(),
                describe(event.cause()));
    }

    @Override
    public void connectionClosed(ConnectionClosed event) {
        event.cause().ifPresent(cause -> {
            if (!state.restarting() && state.cause().isPresent()) {
                return; // the end of a restart that gave up, already logged
            }
            state = new State(Optional.of(cause), false);
            LOG.warn("codex: lost the app-server{}; the client is closed (codex.restart.enabled=true restarts it)",
                    describe(cause));
        });
    }

    /** The exit code, the message and the tail of stderr, for a log line; secrets are redacted by the client. */
    static String describe(CodexException cause) {
        // The transport's message already says the exit code and the stderr tail; added only where it does not.
        String message = String.valueOf(cause.getMessage());
        StringBuilder text = new StringBuilder();
        if (cause instanceof CodexTransportException transport && transport.exitCode().isPresent()
                && !message.contains(String.valueOf(transport.exitCode().getAsInt()))) {
            text.append(" (exit code ").append(transport.exitCode().getAsInt()).append(')');
        }
        text.append(": ").append(message);
        if (cause instanceof CodexTransportException transport && transport.stderrTail() != null
                && !transport.stderrTail().isBlank() && !message.contains(transport.stderrTail().strip())) {
            text.append("; stderr: ").append(transport.stderrTail().strip());
        }
        return text.toString();
    }
}
