package dev.codexclient.telemetry;

import java.net.URI;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@code CodexPool} took a member in: one given to its builder, or one its resolver found.
 * The member's client is built; new threads may go to it.
 *
 * @param member  the member's name (for a resolved member, its endpoint's name, e.g. {@code codex-0.codex:8080})
 * @param address the member's address, when it has one (a spawned member has none)
 */
public record PoolMemberAdded(String member, Optional<URI> address) {
    /**
     * Checks that every member is present.
     *
     * @param member  the member's name
     * @param address the member's address, when it has one
     */
    public PoolMemberAdded {
        Objects.requireNonNull(member, "member");
        Objects.requireNonNull(address, "address");
    }
}
