package dev.codexclient.agent;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * One tool the model used during a run: a command, a file change, a dynamic tool or an MCP server's tool.
 *
 * @param kind      what kind of tool
 * @param itemId    the item's id in the thread
 * @param name      the command line, the changed paths, the dynamic tool's name, or {@code server/tool}
 * @param arguments the arguments as JSON: the command and its directory, the changes, the tool's arguments
 * @param outcome   how it ended
 * @param duration  how long it took, as codex measured it (or the client, for dynamic tools)
 * @param detail    what else is worth knowing: a command's exit code, a failure's message; empty when nothing
 */
public record ToolInvocation(Kind kind, String itemId, String name, JsonNode arguments, Outcome outcome,
                             Duration duration, Optional<String> detail) {
    /**
     * Checks every member is present.
     *
     * @param kind      what kind of tool
     * @param itemId    the item's id in the thread
     * @param name      the command line, the changed paths, the dynamic tool's name, or {@code server/tool}
     * @param arguments the arguments as JSON
     * @param outcome   how it ended
     * @param duration  how long it took
     * @param detail    what else is worth knowing; empty when nothing
     */
    public ToolInvocation {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(itemId, "itemId");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(arguments, "arguments");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(duration, "duration");
        Objects.requireNonNull(detail, "detail");
    }

    /** What kind of tool. */
    public enum Kind {
        /** A shell command ({@code commandExecution}). */
        COMMAND,
        /** A patch to files ({@code fileChange}). */
        FILE_CHANGE,
        /** A dynamic tool of the run ({@code dynamicToolCall}). */
        DYNAMIC_TOOL,
        /** A tool of an external MCP server ({@code mcpToolCall}). */
        MCP_TOOL
    }

    /** How a tool use ended. */
    public enum Outcome {
        /** It ran and succeeded (a command with exit code 0 included). */
        COMPLETED,
        /** It ran and failed, or could not run. */
        FAILED,
        /** An approval was declined, so it never ran. */
        DECLINED
    }
}
