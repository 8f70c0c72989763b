package dev.codexclient;

/**
 * The four decisions every kind of approval understands. Package-private so that users have one spelling for
 * each: the constants of {@link ApprovalDecision}.
 */
enum StandardDecision implements ApprovalDecision {
    ACCEPT,
    ACCEPT_FOR_SESSION,
    DECLINE,
    CANCEL
}
