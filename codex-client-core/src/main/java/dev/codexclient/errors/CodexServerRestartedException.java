package dev.codexclient.errors;

import java.util.Optional;
import java.util.OptionalInt;

/**
 * A turn was running when the connection to its server was lost (the app-server died, or the socket closed), and
 * the client's {@link dev.codexclient.RestartPolicy restart policy} restarts the connection. Whether the turn went
 * on on the server is not known: a restarted server has lost it, a server reached again may have finished it. The
 * thread itself is resumed, and its handle and listeners stay valid: read the thread to see what was kept, and
 * start a new turn to retry.
 *
 * <pre>{@code
 * try {
 *     turn.await(Duration.ofMinutes(10));
 * } catch (CodexServerRestartedException e) {
 *     thread.startTurn("Continue where you stopped").await(Duration.ofMinutes(10));
 * }
 * }</pre>
 */
public class CodexServerRestartedException extends CodexTransportException {
    private static final long serialVersionUID = 1L;

    /** The thread of the lost turn. */
    private final String threadId;
    /** The lost turn; null when the server had not named it yet. */
    private final String turnId;

    /**
     * A turn lost with its connection.
     *
     * @param threadId the thread of the turn
     * @param turnId   the turn, or null when the server had not named it yet
     * @param cause    how the connection was lost
     */
    public CodexServerRestartedException(String threadId, String turnId, CodexTransportException cause) {
        // No exit code or stderr tail in the message: a restart the policy handles is an event for the user, not a
        // failure report. They stay on the cause (and behind exitCode() and stderrTail()) for whoever needs them.
        super(message(threadId, turnId, cause), OptionalInt.empty(), "", cause);
        this.threadId = threadId;
        this.turnId = turnId;
    }

    private static String message(String threadId, String turnId, CodexTransportException cause) {
        String turn = turnId == null ? "a turn being started" : "turn " + turnId;
        String why = cause.getMessage() == null ? "" : cause.getMessage().lines().findFirst().orElse("");
        return "the connection was lost while " + turn + " of thread " + threadId + " was running (" + why
                + "); the thread is resumed on the new connection: start a new turn to retry";
    }

    /** {@return the exit code of the server that went away, as its connection's end reported it} */
    @Override
    public OptionalInt exitCode() {
        return getCause() instanceof CodexTransportException t ? t.exitCode() : OptionalInt.empty();
    }

    /**
     * {@return the last lines the server that went away wrote to stderr (redacted, bounded), as its connection's end
     * reported them} They are left out of the message, which is about the turn, not the server's failure.
     */
    @Override
    public String stderrTail() {
        return getCause() instanceof CodexTransportException t ? t.stderrTail() : "";
    }

    /** {@return the id of the thread of the lost turn; the thread is resumed on the new connection} */
    public String threadId() {
        return threadId;
    }

    /**
     * {@return the id of the lost turn; empty when the connection was lost while the turn was being started, before
     * the server named it}
     */
    public Optional<String> turnId() {
        return Optional.ofNullable(turnId);
    }
}
