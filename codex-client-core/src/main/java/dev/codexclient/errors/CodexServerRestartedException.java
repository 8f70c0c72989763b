package dev.codexclient.errors;

import java.util.Optional;

/**
 * A turn was running when the connection to its server was lost (the app-server died, or the socket closed), and
 * the client's {@link dev.codexclient.RestartPolicy restart policy} restores the connection. Whether the turn went
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
        super(message(threadId, turnId, cause), cause.exitCode(), cause.stderrTail(), cause);
        this.threadId = threadId;
        this.turnId = turnId;
    }

    private static String message(String threadId, String turnId, CodexTransportException cause) {
        String turn = turnId == null ? "a turn being started" : "turn " + turnId;
        String why = cause.getMessage() == null ? "" : cause.getMessage().lines().findFirst().orElse("");
        return "the connection was lost while " + turn + " of thread " + threadId + " was running (" + why
                + "); the thread is resumed on the restored connection: start a new turn to retry";
    }

    /** {@return the id of the thread of the lost turn; the thread is resumed on the restored connection} */
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
