package dev.codexclient.telemetry;

import dev.codexclient.errors.CodexException;
import java.util.Objects;

/**
 * A thread the user holds could not be resumed on a new connection (the new server does not have it: an
 * ephemeral thread, another {@code CODEX_HOME}, an archived thread). The client let go of it: its listeners were
 * closed and its turns failed with {@code cause}'s reason. The restart itself goes on.
 *
 * @param threadId the thread's id
 * @param cause    why the resume failed, typically a {@link dev.codexclient.errors.CodexRpcException} with the
 *                 server's error
 */
public record ThreadNotResumed(String threadId, CodexException cause) {
    /**
     * Checks that every member is present.
     *
     * @param threadId the thread's id
     * @param cause    why the resume failed
     */
    public ThreadNotResumed {
        Objects.requireNonNull(threadId, "threadId");
        Objects.requireNonNull(cause, "cause");
    }
}
