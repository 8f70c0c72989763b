package dev.codexclient.approvals;

import dev.codexclient.errors.CodexException;

/**
 * The inbox's store could not be reached or refused an operation. Nothing was recorded; a decision refused with it
 * can be made again when the store is back ({@link ApprovalInbox#health()}).
 */
public class InboxStoreException extends CodexException {
    private static final long serialVersionUID = 1L;

    /**
     * A store failure.
     *
     * @param message what failed
     * @param cause   the store's exception
     */
    public InboxStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
