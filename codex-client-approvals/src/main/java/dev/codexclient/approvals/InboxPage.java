package dev.codexclient.approvals;

import java.util.List;

/**
 * One page of entries.
 *
 * @param entries the entries, newest first
 * @param total   how many entries pass the query's filters, on every page
 * @param page    the page, from 0
 * @param size    the page's size as asked
 */
public record InboxPage(List<InboxEntry> entries, long total, int page, int size) {
    /**
     * Copies the entries.
     *
     * @param entries the entries
     * @param total   the total
     * @param page    the page
     * @param size    the size
     */
    public InboxPage {
        entries = List.copyOf(entries);
    }
}
