/**
 * Agent runs on codex-client: a prompt evaluated by codex in a private workspace copied from host mounts, under a
 * token budget and a deadline, with dynamic tools, external MCP servers, structured output, a thread resumed across
 * runs while the workspace stays the same, tool invocations, and failures by phase, on a client or a pool. Built on the
 * public API of {@code dev.codexclient.core} only.
 */
module dev.codexclient.agent {
    requires transitive dev.codexclient.core;
    requires org.slf4j;

    // By job: runs (with their engine, package-private), workspaces and their security, sessions, model configuration.
    exports dev.codexclient.agent;
    exports dev.codexclient.agent.workspace;
    exports dev.codexclient.agent.session;
    exports dev.codexclient.agent.model;
}
