package dev.codexclient.agent;

import java.util.Objects;

/**
 * What a {@link SessionStore} keeps for one key: the thread to resume and what it was started with.
 *
 * @param threadId     the codex thread
 * @param cwd          the working directory it ran in (absolute)
 * @param fingerprint  the workspace's {@link Workspace#fingerprint() fingerprint}; empty for a run without one
 * @param codexVersion the version of the codex that ran it, as its handshake reported; empty when unknown
 */
public record SessionEntry(String threadId, String cwd, String fingerprint, String codexVersion) {
    /**
     * Checks every member is present.
     *
     * @param threadId     the codex thread
     * @param cwd          the working directory it ran in
     * @param fingerprint  the workspace's fingerprint, or empty
     * @param codexVersion the version of the codex that ran it, or empty
     */
    public SessionEntry {
        Objects.requireNonNull(threadId, "threadId");
        Objects.requireNonNull(cwd, "cwd");
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(codexVersion, "codexVersion");
    }

    /**
     * Whether a run in {@code cwd} with {@code fingerprint} may resume this entry's thread.
     *
     * @param cwd         the run's working directory
     * @param fingerprint the run's workspace fingerprint, or empty
     * @return true when both are the same
     */
    public boolean matches(String cwd, String fingerprint) {
        return this.cwd.equals(cwd) && this.fingerprint.equals(fingerprint);
    }
}
