package dev.codexclient.errors;

import java.util.OptionalInt;

/**
 * The connection to the app-server is gone: the child process exited, its stdout closed, a write failed, or the
 * client was closed. Every request still pending on that connection fails with this exception.
 *
 * <p>{@link #exitCode()} is present when a child process exited; {@link #stderrTail()} holds the last lines it
 * wrote to stderr, with secrets redacted.
 */
public class CodexTransportException extends CodexException {
    private static final long serialVersionUID = 1L;

    /** The child's exit code; null when no child process exited. */
    private final Integer exitCode;
    /** The last lines the child wrote to stderr (redacted, bounded); empty when there were none. */
    private final String stderrTail;

    /**
     * The end of a connection, with what is known about it.
     *
     * @param message    what ended; the exit code and the stderr tail are appended to it when present
     * @param exitCode   the child's exit code, when it exited
     * @param stderrTail the child's last stderr lines (redacted, bounded), or empty
     * @param cause      the I/O failure behind it, or null
     */
    public CodexTransportException(String message, OptionalInt exitCode, String stderrTail, Throwable cause) {
        super(compose(message, exitCode, stderrTail), cause);
        this.exitCode = exitCode.isPresent() ? exitCode.getAsInt() : null;
        this.stderrTail = stderrTail == null ? "" : stderrTail;
    }

    /**
     * An end without an exit code or stderr tail, e.g. the client's own close.
     *
     * @param message what ended
     */
    public CodexTransportException(String message) {
        this(message, OptionalInt.empty(), "", null);
    }

    /**
     * An end caused by {@code cause}, without an exit code or stderr tail.
     *
     * @param message what ended
     * @param cause   the I/O failure behind it, or null
     */
    public CodexTransportException(String message, Throwable cause) {
        this(message, OptionalInt.empty(), "", cause);
    }

    /** {@return the child's exit code, when the transport ran a child process that has exited} */
    public OptionalInt exitCode() {
        return exitCode == null ? OptionalInt.empty() : OptionalInt.of(exitCode);
    }

    /** {@return the last lines the child wrote to stderr (redacted, bounded); empty when there were none} */
    public String stderrTail() {
        return stderrTail;
    }

    private static String compose(String message, OptionalInt exitCode, String stderrTail) {
        StringBuilder sb = new StringBuilder(message);
        exitCode.ifPresent(code -> sb.append(" (exit code ").append(code).append(')'));
        if (stderrTail != null && !stderrTail.isBlank()) {
            sb.append("\n--- last stderr lines ---\n").append(stderrTail.strip());
        }
        return sb.toString();
    }
}
