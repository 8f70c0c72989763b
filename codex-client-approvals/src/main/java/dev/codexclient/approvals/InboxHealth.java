package dev.codexclient.approvals;

import java.util.Optional;

/**
 * Whether the inbox can record decisions. Down while its store cannot be reached: the inbox then fails closed (no
 * decision is recorded, nothing is sent to codex), keeps the requests that arrive in memory, and writes them when
 * the store is back.
 *
 * @param up       whether the store answered the last time it was asked
 * @param problem  why not, when down
 * @param unsaved  requests and changes waiting for the store
 * @param pending  pending entries, as the store counted them last
 */
public record InboxHealth(boolean up, Optional<String> problem, int unsaved, long pending) {
}
