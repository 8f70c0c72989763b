package dev.codexclient;

import java.util.Objects;
import java.util.concurrent.CancellationException;

/**
 * Why the client stopped waiting for the answer to a server request: the cancellation of the stage a handler or an
 * {@link ApprovalPolicy} returned. The client cancels that stage by completing it with this exception, so the stage
 * {@code isCancelled()} as before, and a policy that must know why (a durable inbox marks its entry withdrawn, lost,
 * or still waiting) reads {@link #reason()} where it sees the cancellation:
 *
 * <pre>{@code
 * stage.whenComplete((decision, error) -> {
 *     if (error instanceof ServerRequestWithdrawnException w && w.reason() == Reason.RESOLVED) { ... }
 * });
 * }</pre>
 *
 * <p>A stage that is not a {@code CompletableFuture} is cancelled through its {@code toCompletableFuture()}; a stage
 * cancelled by other code than the client's carries a plain {@link CancellationException}.
 */
public final class ServerRequestWithdrawnException extends CancellationException {
    private static final long serialVersionUID = 1L;

    /** Why the client stopped waiting. */
    public enum Reason {
        /**
         * The server resolved the request itself ({@code serverRequest/resolved}): it was answered on another
         * connection, or codex ended it (the turn was interrupted or ended, the thread closed). Nothing is sent.
         */
        RESOLVED,
        /**
         * No one can answer the request any more: the server that sent it is gone (the client's child process
         * ended, or was stopped with the client; a restart replaced it with one that did not send the request
         * again), or it ended the request while the client was not connected to it.
         */
        GONE,
        /**
         * The client stopped waiting (it was closed, or lost its connection and did not get it back) while the
         * server, one the client did not start ({@code codex app-server --listen}), may live on and hold the
         * request: codex sends it again, with its original id and params, to the next client that resumes the
         * thread.
         */
        DISCONNECTED
    }

    /** Why the client stopped waiting. */
    private final Reason reason;

    /**
     * A withdrawal for {@code reason}.
     *
     * @param reason why the client stopped waiting
     */
    public ServerRequestWithdrawnException(Reason reason) {
        super(message(Objects.requireNonNull(reason, "reason")));
        this.reason = reason;
    }

    /** {@return why the client stopped waiting} */
    public Reason reason() {
        return reason;
    }

    private static String message(Reason reason) {
        return switch (reason) {
            case RESOLVED -> "the server resolved the request itself";
            case GONE -> "the server that sent the request is gone";
            case DISCONNECTED -> "the client stopped waiting; the server may send the request again";
        };
    }
}
