package dev.codexclient.approvals;

/**
 * Told of the inbox's entries as they change, on the inbox's own thread, in the order of the changes. Changes made
 * through any instance that shares the store are told (a web page of each instance shows them all);
 * {@link #ended} only in the instance that ended the entry, so that what is counted there is counted once.
 */
public interface InboxListener {

    /**
     * An entry was added or changed, here or through another instance.
     *
     * @param entry the entry as it is now
     */
    default void changed(InboxEntry entry) {
    }

    /**
     * An entry ended through this instance: decided here, expired by this instance's timer, or withdrawn or lost
     * here.
     *
     * @param entry the entry as it ended
     */
    default void ended(InboxEntry entry) {
    }
}
