package dev.codexclient.agent.session;

import java.util.Objects;
import dev.codexclient.agent.workspace.Workspace;

/**
 * What a {@link SessionStore} keeps for one key: the thread to resume and what identifies the runs that may resume
 * it.
 *
 * <p>A run resumes the entry's thread when its {@link #cwd() location}, {@link #fingerprint() workspace fingerprint}
 * and {@link #tools() tool set} are the entry's (see {@link #matches}). A run in a {@link Workspace} is identified by
 * its workspace's fingerprint (the mounts, the budgets and the copied content), never by the workspace's directory:
 * every workspace has a directory of its own, so the same content copied again, in this process or another, resumes
 * the thread, and codex is told the new directory on resume.
 *
 * @param threadId     the codex thread
 * @param cwd          for a run in a host directory, that directory (absolute); for a run in a workspace, empty
 * @param fingerprint  the workspace's {@link Workspace#fingerprint() fingerprint}; empty for a run in a host directory
 * @param codexVersion the version of the codex that ran it, as its handshake reported; empty when unknown
 * @param tools        a hash of the run's dynamic tools (names, descriptions, input schemas); empty for a run without
 *                     any. Codex keeps the tools a thread was started with and takes none on resume, so a run with
 *                     other tools starts a new thread rather than one whose model would not see them
 */
public record SessionEntry(String threadId, String cwd, String fingerprint, String codexVersion, String tools) {
    /**
     * Checks every member is present.
     *
     * @param threadId     the codex thread
     * @param cwd          the host directory it ran in, or empty for a workspace run
     * @param fingerprint  the workspace's fingerprint, or empty
     * @param codexVersion the version of the codex that ran it, or empty
     * @param tools        the hash of the run's dynamic tools, or empty
     */
    public SessionEntry {
        Objects.requireNonNull(threadId, "threadId");
        Objects.requireNonNull(cwd, "cwd");
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(codexVersion, "codexVersion");
        Objects.requireNonNull(tools, "tools");
    }

    /**
     * An entry of a run without dynamic tools.
     *
     * @param threadId     the codex thread
     * @param cwd          the host directory it ran in, or empty for a workspace run
     * @param fingerprint  the workspace's fingerprint, or empty
     * @param codexVersion the version of the codex that ran it, or empty
     */
    public SessionEntry(String threadId, String cwd, String fingerprint, String codexVersion) {
        this(threadId, cwd, fingerprint, codexVersion, "");
    }

    /**
     * Whether a run at {@code cwd} with {@code fingerprint} and {@code tools} may resume this entry's thread.
     *
     * @param cwd         the run's host directory, or empty for a workspace run
     * @param fingerprint the run's workspace fingerprint, or empty
     * @param tools       the hash of the run's dynamic tools, or empty
     * @return true when all three are the entry's
     */
    public boolean matches(String cwd, String fingerprint, String tools) {
        return this.cwd.equals(cwd) && this.fingerprint.equals(fingerprint) && this.tools.equals(tools);
    }
}
