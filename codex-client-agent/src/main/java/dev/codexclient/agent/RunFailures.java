package dev.codexclient.agent;

import dev.codexclient.Codex;
import dev.codexclient.CodexClient;
import dev.codexclient.errors.CodexTransportException;
import java.util.Optional;

/**
 * The failures of one run, every text of them masked by what the run runs on ({@link Codex#mask}: a client, or every
 * member of a pool): messages, the stderr tail, a failed turn's details. A server that echoes a credential back (a provider's 400 repeating the
 * request's {@code Authorization} header) must not put it into an exception, a log line or telemetry. One job: the
 * run's failure texts.
 */
final class RunFailures {
    private final Codex codex;
    /** The run's client, whose server's stderr the failures carry; empty on a pool. */
    private final Optional<CodexClient> client;
    private final RunTracker tracker;

    RunFailures(Codex codex, Optional<CodexClient> client, RunTracker tracker) {
        this.codex = codex;
        this.client = client;
        this.tracker = tracker;
    }

    /** {@code text} masked as the client masks what it reports. */
    String mask(String text) {
        return codex.mask(text);
    }

    /** A failure in {@code phase}, with the server's stderr tail (or the ended connection's, for {@code cause}). */
    AgentRunException failure(FailurePhase phase, String message, Throwable cause, String threadId) {
        return new AgentRunException(phase, mask(message), cause, details(tail(cause), threadId));
    }

    /** What a failure carries: the stderr tail, the run's usage so far and its thread, masked. */
    AgentRunException.Details details(String stderrTail, String threadId) {
        return new AgentRunException.Details(Optional.empty(), Optional.empty(), mask(stderrTail),
                tracker.reported() ? Optional.of(tracker.usage()) : Optional.empty(), Optional.ofNullable(threadId));
    }

    /**
     * The stderr tail of a failure: the ended connection's own, else what the run's server wrote; on a pool, whose
     * members' servers are the pool's, the ended connection's only.
     */
    String tail(Throwable e) {
        if (e instanceof CodexTransportException te && !te.stderrTail().isEmpty()) {
            return te.stderrTail();
        }
        return serverTail();
    }

    /** What the run's server wrote to stderr lately; empty on a pool. */
    String serverTail() {
        return client.map(CodexClient::serverStderrTail).orElse("");
    }
}
