package dev.codexclient.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.agent.ToolInvocation.Kind;
import dev.codexclient.agent.ToolInvocation.Outcome;
import dev.codexclient.protocol.CommandExecutionStatus;
import dev.codexclient.protocol.DynamicToolCallStatus;
import dev.codexclient.protocol.FileUpdateChange;
import dev.codexclient.protocol.McpToolCallStatus;
import dev.codexclient.protocol.PatchApplyStatus;
import dev.codexclient.protocol.PatchChangeKind;
import dev.codexclient.protocol.ThreadItem;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Turns a completed thread item into a {@link ToolInvocation}, when it is a tool's use. One job: the mapping. */
final class Invocations {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private Invocations() {
    }

    static Optional<ToolInvocation> of(ThreadItem item) {
        if (item instanceof ThreadItem.CommandExecution c) {
            Outcome outcome = c.status() == null ? Outcome.FAILED : switch (c.status().known()) {
                case COMPLETED -> c.exitCode() == null || c.exitCode() == 0 ? Outcome.COMPLETED : Outcome.FAILED;
                case DECLINED -> Outcome.DECLINED;
                default -> Outcome.FAILED;
            };
            ObjectNode args = JSON.objectNode();
            args.put("command", nullToEmpty(c.command()));
            args.put("cwd", nullToEmpty(c.cwd()));
            String detail = c.exitCode() != null ? "exit code " + c.exitCode()
                    : c.status() != null && !CommandExecutionStatus.COMPLETED.equals(c.status())
                    ? "status " + c.status().asString() : null;
            return Optional.of(new ToolInvocation(Kind.COMMAND, c.id(), nullToEmpty(c.command()), args, outcome,
                    duration(c.durationMs(), c.startedAtMs(), c.completedAtMs()), Optional.ofNullable(detail)));
        }
        if (item instanceof ThreadItem.FileChange f) {
            Outcome outcome = f.status() == null ? Outcome.FAILED : switch (f.status().known()) {
                case COMPLETED -> Outcome.COMPLETED;
                case DECLINED -> Outcome.DECLINED;
                default -> Outcome.FAILED;
            };
            ArrayNode changes = JSON.arrayNode();
            List<String> paths = new ArrayList<>();
            for (FileUpdateChange change : f.changes() == null ? List.<FileUpdateChange>of() : f.changes()) {
                ObjectNode c = changes.addObject();
                c.put("path", nullToEmpty(change.path()));
                c.put("kind", kindOf(change.kind()));
                paths.add(nullToEmpty(change.path()));
            }
            ObjectNode args = JSON.objectNode();
            args.set("changes", changes);
            return Optional.of(new ToolInvocation(Kind.FILE_CHANGE, f.id(), String.join(", ", paths), args, outcome,
                    duration(null, f.startedAtMs(), f.completedAtMs()),
                    statusDetail(f.status() == null || PatchApplyStatus.COMPLETED.equals(f.status()) ? null
                            : f.status().asString())));
        }
        if (item instanceof ThreadItem.McpToolCall m) {
            Outcome outcome = McpToolCallStatus.COMPLETED.equals(m.status()) ? Outcome.COMPLETED : Outcome.FAILED;
            return Optional.of(new ToolInvocation(Kind.MCP_TOOL, m.id(), m.server() + "/" + m.tool(),
                    args(m.arguments()), outcome, duration(m.durationMs(), m.startedAtMs(), m.completedAtMs()),
                    Optional.ofNullable(m.error() == null ? null : m.error().message())));
        }
        if (item instanceof ThreadItem.DynamicToolCall d) {
            Outcome outcome = DynamicToolCallStatus.COMPLETED.equals(d.status()) && !Boolean.FALSE.equals(d.success())
                    ? Outcome.COMPLETED : Outcome.FAILED;
            return Optional.of(new ToolInvocation(Kind.DYNAMIC_TOOL, d.id(), nullToEmpty(d.tool()),
                    args(d.arguments()), outcome, duration(d.durationMs(), d.startedAtMs(), d.completedAtMs()),
                    statusDetail(outcome == Outcome.COMPLETED ? null : "the tool reported a failure")));
        }
        return Optional.empty();
    }

    /**
     * {@code invocation} with its name, every string of its arguments and its detail passed through {@code mask}.
     */
    static ToolInvocation masked(ToolInvocation invocation, java.util.function.UnaryOperator<String> mask) {
        return new ToolInvocation(invocation.kind(), invocation.itemId(), mask.apply(invocation.name()),
                maskStrings(invocation.arguments(), mask), invocation.outcome(), invocation.duration(),
                invocation.detail().map(mask));
    }

    private static JsonNode maskStrings(JsonNode node, java.util.function.UnaryOperator<String> mask) {
        if (node.isTextual()) {
            return JSON.textNode(mask.apply(node.textValue()));
        }
        if (node.isArray()) {
            ArrayNode out = JSON.arrayNode();
            node.forEach(n -> out.add(maskStrings(n, mask)));
            return out;
        }
        if (node.isObject()) {
            ObjectNode out = JSON.objectNode();
            node.fields().forEachRemaining(e -> out.set(e.getKey(), maskStrings(e.getValue(), mask)));
            return out;
        }
        return node.deepCopy();
    }

    private static String kindOf(PatchChangeKind kind) {
        if (kind instanceof PatchChangeKind.Add) {
            return "add";
        }
        if (kind instanceof PatchChangeKind.Delete) {
            return "delete";
        }
        if (kind instanceof PatchChangeKind.Update) {
            return "update";
        }
        return "unknown";
    }

    private static Optional<String> statusDetail(String detail) {
        return detail == null ? Optional.empty() : Optional.of(detail.startsWith("the") ? detail : "status " + detail);
    }

    private static JsonNode args(JsonNode arguments) {
        return arguments == null ? JSON.nullNode() : arguments.deepCopy();
    }

    private static Duration duration(Long durationMs, Long startedAtMs, Long completedAtMs) {
        if (durationMs != null) {
            return Duration.ofMillis(Math.max(0, durationMs));
        }
        if (startedAtMs != null && completedAtMs != null) {
            return Duration.ofMillis(Math.max(0, completedAtMs - startedAtMs));
        }
        return Duration.ZERO;
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }
}
