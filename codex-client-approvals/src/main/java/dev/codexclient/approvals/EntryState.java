package dev.codexclient.approvals;

import java.util.Arrays;
import java.util.Optional;

/**
 * Where an entry of the inbox is in its life. Every entry starts {@link #PENDING} and ends in exactly one of the
 * other states, once: nothing stays pending that no one can answer.
 */
public enum EntryState {
    /** codex waits for a decision. */
    PENDING,
    /** A person decided; the decision is sent to codex (see the entry's history for when it was sent). */
    DECIDED,
    /** codex resolved the request itself: its turn was interrupted or ended, its thread closed, or it was answered
     * elsewhere. */
    WITHDRAWN,
    /** No one decided within the kind's time to live: the inbox's default decision (decline unless configured
     * otherwise) was sent and recorded as such. */
    EXPIRED,
    /** The codex server that asked is gone (its process ended): no one can answer the request any more. Resume the
     * thread and run the turn again to ask anew. */
    LOST;

    /** {@return whether the entry has ended (every state but {@link #PENDING})} */
    public boolean ended() {
        return this != PENDING;
    }

    /**
     * The state named {@code name}, in any case.
     *
     * @param name the name, e.g. {@code pending}
     * @return the state; empty for a name of none
     */
    public static Optional<EntryState> named(String name) {
        return Arrays.stream(values()).filter(s -> s.name().equalsIgnoreCase(name)).findFirst();
    }
}
