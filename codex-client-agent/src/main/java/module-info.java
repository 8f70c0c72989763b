/**
 * Agent runs on codex-client: a prompt evaluated by codex in a private workspace copied from host mounts, under a
 * token budget and a deadline, with dynamic tools, external MCP servers, structured output, a thread resumed across
 * runs while the workspace stays the same, tool invocations, and failures by phase. Built on the public API of
 * {@code dev.codexclient.core} only.
 */
module dev.codexclient.agent {
    requires transitive dev.codexclient.core;
    requires org.slf4j;

    exports dev.codexclient.agent;
}
