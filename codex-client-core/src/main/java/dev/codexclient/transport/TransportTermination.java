package dev.codexclient.transport;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Why a transport ended.
 *
 * @param reason     a human-readable sentence, e.g. {@code "codex app-server exited"}
 * @param exitCode   the child's exit code, when a child process exited
 * @param stderrTail the last stderr lines of the child, redacted and bounded; empty when none
 * @param cause      the I/O failure that ended the transport, if any
 * @param requested  true when the client asked for the close (as opposed to the peer going away)
 */
public record TransportTermination(String reason, OptionalInt exitCode, String stderrTail,
                                   Optional<Throwable> cause, boolean requested) {

    /**
     * Checks that every member is present.
     *
     * @param reason     a human-readable sentence, e.g. {@code "codex app-server exited"}
     * @param exitCode   the child's exit code, when a child process exited
     * @param stderrTail the last stderr lines of the child, redacted and bounded; empty when none
     * @param cause      the I/O failure that ended the transport, if any
     * @param requested  true when the client asked for the close (as opposed to the peer going away)
     */
    public TransportTermination {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(exitCode, "exitCode");
        Objects.requireNonNull(stderrTail, "stderrTail");
        Objects.requireNonNull(cause, "cause");
    }

    /**
     * A close the client itself asked for.
     *
     * @param reason a human-readable sentence, e.g. {@code "the client was closed"}
     * @return the termination, without exit code, stderr tail or cause
     */
    public static TransportTermination requested(String reason) {
        return new TransportTermination(reason, OptionalInt.empty(), "", Optional.empty(), true);
    }

    /**
     * The child process exited on its own: what a fake server passes to
     * {@link InMemoryTransport#closeWith(TransportTermination)} to play a crash.
     *
     * @param exitCode   the exit code to report
     * @param stderrTail the last stderr lines to report; empty for none
     * @return the termination
     */
    public static TransportTermination exited(int exitCode, String stderrTail) {
        return new TransportTermination("codex app-server exited", OptionalInt.of(exitCode),
                Objects.requireNonNull(stderrTail, "stderrTail"), Optional.empty(), false);
    }
}
