/**
 * Agent runs: an {@link dev.codexclient.agent.AgentRun} (a prompt, its working directory, tools, MCP servers, budget,
 * deadline, approval policy, session key) run by an {@link dev.codexclient.agent.AgentRunner} on clients it builds or
 * on a {@link dev.codexclient.Codex} it is given (a client or a pool), with its
 * {@link dev.codexclient.agent.AgentResult}, its failures by {@link dev.codexclient.agent.FailurePhase phase} and
 * its telemetry. The engine of a run (its thread, its tracker, its failures) is package-private. Workspaces are in
 * {@code dev.codexclient.agent.workspace}, sessions in {@code dev.codexclient.agent.session}, the model's settings in
 * {@code dev.codexclient.agent.model}.
 */
package dev.codexclient.agent;
