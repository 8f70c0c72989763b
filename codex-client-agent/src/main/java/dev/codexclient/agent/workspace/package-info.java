/**
 * Workspaces and their security: a {@link dev.codexclient.agent.workspace.Workspace}, a private directory a run works
 * in, copied from {@link dev.codexclient.agent.workspace.HostMount host mounts} under allowed roots, within budgets of
 * files and bytes, refusing links, hard links and names that would reach outside it
 * ({@link dev.codexclient.agent.workspace.WorkspaceSecurityException}); its
 * {@link dev.codexclient.agent.workspace.WorkspacePreview preview} before anything is copied, and its fingerprint. The
 * copy itself and the directories' ownership are package-private.
 */
package dev.codexclient.agent.workspace;
