/**
 * Model configuration: which model a run uses and how ({@link dev.codexclient.agent.model.ModelConfig}: the model,
 * reasoning effort and summary, personality), checked against what the codex app-server takes.
 */
package dev.codexclient.agent.model;
