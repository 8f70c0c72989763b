package dev.codexclient.agent.workspace;

import dev.codexclient.errors.CodexException;

/**
 * A workspace could not be built or used: the root of {@link WorkspaceSecurityException} and
 * {@link WorkspaceBudgetExceededException}, and itself thrown when the host's files cannot be read or the
 * workspace's directory cannot be written. A workspace that fails to build leaves nothing on disk.
 */
public class WorkspaceException extends CodexException {
    private static final long serialVersionUID = 1L;

    /**
     * A failure with a message.
     *
     * @param message what went wrong
     */
    public WorkspaceException(String message) {
        super(message);
    }

    /**
     * A failure caused by another, typically an I/O error.
     *
     * @param message what went wrong
     * @param cause   the failure behind it
     */
    public WorkspaceException(String message, Throwable cause) {
        super(message, cause);
    }
}
