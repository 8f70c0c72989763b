package dev.codexclient.approvals;

import java.util.List;

/**
 * What came of a person's decision ({@link ApprovalInbox#decide}): recorded, or refused with why. Only a recorded
 * decision changes anything.
 */
public sealed interface DecideResult {

    /**
     * The decision is recorded (and sent to codex by the instance that holds the request).
     *
     * @param entry the entry as decided
     */
    record Decided(InboxEntry entry) implements DecideResult {
    }

    /**
     * Refused: the entry had ended already, decided by someone else first, or withdrawn, expired or lost. The
     * entry says who ended it and when ({@link InboxEntry#decidedBy()}, {@link InboxEntry#endedAt()}).
     *
     * @param entry the entry as it ended
     */
    record AlreadyEnded(InboxEntry entry) implements DecideResult {
    }

    /**
     * Refused: the entry's request does not offer this decision.
     *
     * @param entry   the entry
     * @param offered what it offers
     */
    record NotOffered(InboxEntry entry, List<InboxDecision> offered) implements DecideResult {
    }

    /**
     * Refused: no entry has the id.
     *
     * @param id the id asked for
     */
    record Unknown(String id) implements DecideResult {
    }
}
