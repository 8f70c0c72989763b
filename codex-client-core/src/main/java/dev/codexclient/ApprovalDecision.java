package dev.codexclient;

/**
 * A decision on an approval request, independent of which kind of approval it answers. The client maps it to
 * the wire value of each request type ({@code accept}/{@code approved}, {@code acceptForSession}/
 * {@code approved_for_session}, {@code decline}/{@code denied}, {@code cancel}/{@code abort}).
 */
public enum ApprovalDecision {
    /** Allow this one action. */
    ACCEPT,
    /** Allow this action and, for the rest of the session, others like it. */
    ACCEPT_FOR_SESSION,
    /** Refuse the action; the turn continues without it. */
    DECLINE,
    /** Refuse the action and stop the turn. */
    CANCEL
}
