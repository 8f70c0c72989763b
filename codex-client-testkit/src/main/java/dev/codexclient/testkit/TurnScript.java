package dev.codexclient.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.testkit.internal.fake.Json;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A canned turn, played when the client sends {@code turn/start}: {@code turn/started}, then one step after the
 * other ({@code item/started}, deltas, {@code item/completed}, ...), then {@code turn/completed}, with consistent
 * thread, turn and item ids. {@code turn/interrupt} ends a playing turn with status {@code interrupted}.
 * <pre>{@code
 * fake.onTurnStart(turn -> turn
 *         .reasoning("Looking at the repository")
 *         .agentMessage("Deleting…")
 *         .commandApproval("rm -rf /", reply -> assertThat(reply.decision()).contains("decline"))
 *         .tokenUsage(1200, 80)
 *         .completed());
 * }</pre>
 * A script without an ending completes normally.
 */
public final class TurnScript {

    /** One step of a turn, run on the turn's thread. */
    @FunctionalInterface
    interface Step {
        void run(TurnContext turn) throws InterruptedException;
    }

    /** How the turn ends. */
    enum Ending { COMPLETED, INTERRUPTED, FAILED, NEVER }

    /** One entry of a plan update. */
    public record PlanStep(String step, String status) {
        /**
         * Checks the members.
         *
         * @param step what the step is about
         * @param status {@code pending}, {@code inProgress} or {@code completed}
         */
        public PlanStep {
            Objects.requireNonNull(step, "step");
            Objects.requireNonNull(status, "status");
        }

        /**
         * A step not started yet.
         *
         * @param step what the step is about
         * @return the plan step
         */
        public static PlanStep pending(String step) {
            return new PlanStep(step, "pending");
        }

        /**
         * A step in progress.
         *
         * @param step what the step is about
         * @return the plan step
         */
        public static PlanStep inProgress(String step) {
            return new PlanStep(step, "inProgress");
        }

        /**
         * A step done.
         *
         * @param step what the step is about
         * @return the plan step
         */
        public static PlanStep completed(String step) {
            return new PlanStep(step, "completed");
        }
    }

    final List<Step> steps = new ArrayList<>();
    Ending ending = Ending.COMPLETED;
    JsonNode error;

    TurnScript() {
    }

    /**
     * An agent message streamed as word-sized deltas.
     *
     * @param text the message's full text
     * @return this script, for chaining
     */
    public TurnScript agentMessage(String text) {
        return agentMessageDeltas(splitWords(text).toArray(String[]::new));
    }

    /**
     * An agent message streamed as exactly these deltas; the final text is their concatenation.
     *
     * @param deltas the text deltas, in order
     * @return this script, for chaining
     */
    public TurnScript agentMessageDeltas(String... deltas) {
        List<String> parts = List.of(deltas);
        steps.add(turn -> {
            String id = turn.nextItemId("msg");
            turn.itemStarted(item("agentMessage", id).put("text", ""));
            StringBuilder text = new StringBuilder();
            for (String delta : parts) {
                turn.checkInterrupted();
                text.append(delta);
                turn.emit("item/agentMessage/delta", turn.ids().put("itemId", id).put("delta", delta));
            }
            turn.itemCompleted(item("agentMessage", id).put("text", text.toString()));
        });
        return this;
    }

    /**
     * A reasoning item whose summary is streamed as deltas.
     *
     * @param summary the reasoning summary text
     * @return this script, for chaining
     */
    public TurnScript reasoning(String summary) {
        steps.add(turn -> {
            String id = turn.nextItemId("rs");
            ObjectNode started = item("reasoning", id);
            started.putArray("summary");
            started.putArray("content");
            turn.itemStarted(started);
            for (String delta : splitWords(summary)) {
                turn.checkInterrupted();
                turn.emit("item/reasoning/summaryTextDelta",
                        turn.ids().put("itemId", id).put("delta", delta).put("summaryIndex", 0));
            }
            ObjectNode done = item("reasoning", id);
            done.putArray("summary").add(summary);
            done.putArray("content");
            turn.itemCompleted(done);
        });
        return this;
    }

    /**
     * A command that runs without approval, streams its output and ends with {@code exitCode}.
     *
     * @param command the command line, as codex reports it
     * @param output the command's output
     * @param exitCode the command's exit code
     * @return this script, for chaining
     */
    public TurnScript commandExecution(String command, String output, int exitCode) {
        steps.add(turn -> {
            String id = turn.nextItemId("call");
            turn.itemStarted(commandItem(turn, id, command, "inProgress"));
            for (String line : splitLines(output)) {
                turn.checkInterrupted();
                turn.emit("item/commandExecution/outputDelta", turn.ids().put("itemId", id).put("delta", line));
            }
            ObjectNode done = commandItem(turn, id, command, exitCode == 0 ? "completed" : "failed");
            done.put("aggregatedOutput", output).put("exitCode", exitCode).put("durationMs", 12);
            turn.itemCompleted(done);
        });
        return this;
    }

    /**
     * A file change that is applied without approval.
     *
     * @param path the path of the changed file
     * @param diff the change as a unified diff
     * @return this script, for chaining
     */
    public TurnScript fileChange(String path, String diff) {
        steps.add(turn -> {
            String id = turn.nextItemId("patch");
            turn.itemStarted(fileItem(id, path, diff, "inProgress"));
            turn.emit("item/fileChange/outputDelta", turn.ids().put("itemId", id).put("delta", "Success. Updated "
                    + path + "\n"));
            turn.itemCompleted(fileItem(id, path, diff, "completed"));
        });
        return this;
    }

    /**
     * A {@code turn/plan/updated} notification.
     *
     * @param explanation why the plan is what it is; null for none
     * @param plan the steps of the plan, in order
     * @return this script, for chaining
     */
    public TurnScript planUpdate(String explanation, PlanStep... plan) {
        steps.add(turn -> {
            ObjectNode params = turn.ids().put("explanation", explanation);
            ArrayNode array = params.putArray("plan");
            for (PlanStep s : plan) {
                array.addObject().put("step", s.step()).put("status", s.status());
            }
            turn.emit("turn/plan/updated", params);
        });
        return this;
    }

    /**
     * A {@code turn/diff/updated} notification carrying the turn's aggregated diff.
     *
     * @param unifiedDiff the aggregated diff of the turn, in unified format
     * @return this script, for chaining
     */
    public TurnScript diffUpdate(String unifiedDiff) {
        steps.add(turn -> turn.emit("turn/diff/updated", turn.ids().put("diff", unifiedDiff)));
        return this;
    }

    /**
     * A {@code thread/tokenUsage/updated} notification; totals accumulate per thread.
     *
     * @param inputTokens input tokens
     * @param outputTokens output tokens
     * @return this script, for chaining
     */
    public TurnScript tokenUsage(long inputTokens, long outputTokens) {
        return tokenUsage(inputTokens, 0, outputTokens, 0);
    }

    /**
     * A {@code thread/tokenUsage/updated} notification with cached input and reasoning output; totals
     * accumulate per thread.
     *
     * @param inputTokens input tokens
     * @param cachedInputTokens input tokens served from the cache (part of {@code inputTokens})
     * @param outputTokens output tokens
     * @param reasoningOutputTokens reasoning output tokens (part of {@code outputTokens})
     * @return this script, for chaining
     */
    public TurnScript tokenUsage(long inputTokens, long cachedInputTokens, long outputTokens,
                                 long reasoningOutputTokens) {
        steps.add(turn -> turn.tokenUsage(inputTokens, cachedInputTokens, outputTokens, reasoningOutputTokens));
        return this;
    }

    /**
     * A command that needs approval: {@code item/started}, then {@code item/commandExecution/requestApproval},
     * then (after the client's reply, passed to {@code onReply}) {@code serverRequest/resolved} and
     * {@code item/completed} with status {@code completed} when accepted, {@code declined} otherwise. A
     * {@code cancel} decision also interrupts the turn, as codex does.
     *
     * @param command the command line, as codex reports it
     * @param onReply receives the client's reply once it arrives (assertions thrown there are kept in {@link FakeCodexAppServer#failures()})
     * @return this script, for chaining
     */
    public TurnScript commandApproval(String command, Consumer<ClientReply> onReply) {
        Objects.requireNonNull(onReply, "onReply");
        steps.add(turn -> {
            String id = turn.nextItemId("call");
            turn.itemStarted(commandItem(turn, id, command, "inProgress"));
            ObjectNode params = turn.ids().put("itemId", id).put("startedAtMs", System.currentTimeMillis())
                    .put("command", command).put("cwd", turn.cwd()).put("reason", "fake: command needs approval");
            ArrayNode decisions = params.putArray("availableDecisions");
            decisions.add("accept");
            decisions.add("acceptForSession");
            decisions.add("decline");
            decisions.add("cancel");
            Optional<ClientReply> reply = turn.request("item/commandExecution/requestApproval", params, onReply);
            String decision = reply.flatMap(ClientReply::decision).orElse("decline");
            boolean accepted = decision.startsWith("accept");
            ObjectNode done = commandItem(turn, id, command, accepted ? "completed" : "declined");
            if (accepted) {
                done.put("aggregatedOutput", "").put("exitCode", 0).put("durationMs", 5);
            }
            turn.itemCompleted(done);
            if (decision.equals("cancel")) {
                turn.interruptSelf();
            }
        });
        return this;
    }

    /**
     * A file change that needs approval ({@code item/fileChange/requestApproval}), applied when accepted.
     *
     * @param path the path of the changed file
     * @param diff the change as a unified diff
     * @param onReply receives the client's reply once it arrives (assertions thrown there are kept in {@link FakeCodexAppServer#failures()})
     * @return this script, for chaining
     */
    public TurnScript fileChangeApproval(String path, String diff, Consumer<ClientReply> onReply) {
        Objects.requireNonNull(onReply, "onReply");
        steps.add(turn -> {
            String id = turn.nextItemId("patch");
            turn.itemStarted(fileItem(id, path, diff, "inProgress"));
            ObjectNode params = turn.ids().put("itemId", id).put("startedAtMs", System.currentTimeMillis())
                    .put("reason", "fake: file change needs approval");
            Optional<ClientReply> reply = turn.request("item/fileChange/requestApproval", params, onReply);
            String decision = reply.flatMap(ClientReply::decision).orElse("decline");
            boolean accepted = decision.startsWith("accept");
            turn.itemCompleted(fileItem(id, path, diff, accepted ? "completed" : "declined"));
            if (decision.equals("cancel")) {
                turn.interruptSelf();
            }
        });
        return this;
    }

    /**
     * A dynamic tool call ({@code item/tool/call}) the client must answer; {@code arguments} is any value.
     *
     * @param tool the dynamic tool's name
     * @param arguments the arguments: any Jackson-serialisable value (a string is taken as an already serialized JSON document)
     * @param onReply receives the client's reply once it arrives (assertions thrown there are kept in {@link FakeCodexAppServer#failures()})
     * @return this script, for chaining
     */
    public TurnScript toolCall(String tool, Object arguments, Consumer<ClientReply> onReply) {
        Objects.requireNonNull(onReply, "onReply");
        JsonNode args = Json.tree(arguments);
        steps.add(turn -> {
            String callId = turn.nextItemId("call");
            ObjectNode params = turn.ids().put("callId", callId).put("tool", tool);
            params.set("arguments", args.deepCopy());
            turn.request("item/tool/call", params, onReply);
        });
        return this;
    }

    /**
     * A question to the user ({@code item/tool/requestUserInput}), one free-text question with this id.
     *
     * @param questionId the id of the question, echoed in the answer
     * @param question the question's text
     * @param onReply receives the client's reply once it arrives (assertions thrown there are kept in {@link FakeCodexAppServer#failures()})
     * @return this script, for chaining
     */
    public TurnScript userInput(String questionId, String question, Consumer<ClientReply> onReply) {
        Objects.requireNonNull(onReply, "onReply");
        steps.add(turn -> {
            ObjectNode params = turn.ids().put("itemId", turn.nextItemId("input")).put("isBlocking", true);
            params.putArray("questions").addObject().put("id", questionId).put("header", "Question")
                    .put("question", question).put("isOther", false).put("isSecret", false).putNull("options");
            turn.request("item/tool/requestUserInput", params, onReply);
        });
        return this;
    }

    /**
     * Any server request, sent with this turn's thread and turn ids added to {@code params}.
     *
     * @param method the method
     * @param params the params: any Jackson-serialisable value
     * @param onReply receives the client's reply once it arrives (assertions thrown there are kept in {@link FakeCodexAppServer#failures()})
     * @return this script, for chaining
     */
    public TurnScript serverRequest(String method, Object params, Consumer<ClientReply> onReply) {
        Objects.requireNonNull(onReply, "onReply");
        JsonNode p = Json.tree(params);
        steps.add(turn -> {
            ObjectNode merged = turn.ids();
            if (p.isObject()) {
                merged.setAll((ObjectNode) p.deepCopy());
            }
            turn.request(method, merged, onReply);
        });
        return this;
    }

    /**
     * Any notification, sent as given.
     *
     * @param method the method
     * @param params the params: any Jackson-serialisable value
     * @return this script, for chaining
     */
    public TurnScript notification(String method, Object params) {
        JsonNode p = Json.tree(params);
        steps.add(turn -> turn.emit(method, p.deepCopy()));
        return this;
    }

    /**
     * Waits before the next step; an interrupt cuts the wait short.
     *
     * @param duration how long to wait
     * @return this script, for chaining
     */
    public TurnScript pause(Duration duration) {
        steps.add(turn -> turn.sleep(duration));
        return this;
    }

    /**
     * Ends the turn with status {@code completed} (the default).
     *
     * @return this script, for chaining
     */
    public TurnScript completed() {
        ending = Ending.COMPLETED;
        return this;
    }

    /**
     * Ends the turn with status {@code interrupted}, as if the user had stopped it.
     *
     * @return this script, for chaining
     */
    public TurnScript interrupted() {
        ending = Ending.INTERRUPTED;
        return this;
    }

    /**
     * Ends the turn with status {@code failed} and {@code error: {message}}.
     *
     * @param message the error message of the turn
     * @return this script, for chaining
     */
    public TurnScript failed(String message) {
        return failed(message, null);
    }

    /**
     * Ends the turn with status {@code failed}; {@code codexErrorInfo} is any value, e.g. {@code "usageLimitExceeded"}
     * or {@code Map.of("httpConnectionFailed", Map.of("httpStatusCode", 502))}.
     *
     * @param message the error message of the turn
     * @param codexErrorInfo the turn error's {@code codexErrorInfo}: any Jackson-serialisable value
     * @return this script, for chaining
     */
    public TurnScript failed(String message, Object codexErrorInfo) {
        return failed(message, codexErrorInfo, null);
    }

    /**
     * Ends the turn with status {@code failed}, with the turn error's {@code additionalDetails} (codex puts the
     * provider's answer there).
     *
     * @param message the error message of the turn
     * @param codexErrorInfo the turn error's {@code codexErrorInfo}: any Jackson-serialisable value
     * @param additionalDetails the turn error's {@code additionalDetails}, or null for none
     * @return this script, for chaining
     */
    public TurnScript failed(String message, Object codexErrorInfo, String additionalDetails) {
        ObjectNode e = Json.object().put("message", message);
        e.set("codexErrorInfo", Json.tree(codexErrorInfo));
        if (additionalDetails == null) {
            e.putNull("additionalDetails");
        } else {
            e.put("additionalDetails", additionalDetails);
        }
        ending = Ending.FAILED;
        error = e;
        return this;
    }

    /**
     * The turn never completes, not even on interrupt; for testing client timeouts.
     *
     * @return this script, for chaining
     */
    public TurnScript neverComplete() {
        ending = Ending.NEVER;
        return this;
    }

    private static ObjectNode item(String type, String id) {
        return Json.object().put("type", type).put("id", id);
    }

    private static ObjectNode commandItem(TurnContext turn, String id, String command, String status) {
        ObjectNode node = item("commandExecution", id).put("command", command).put("cwd", turn.cwd())
                .putNull("processId").put("source", "agent").put("status", status);
        node.putArray("commandActions").addObject().put("type", "unknown").put("command", command);
        node.putNull("aggregatedOutput");
        node.putNull("exitCode");
        node.putNull("durationMs");
        return node;
    }

    private static ObjectNode fileItem(String id, String path, String diff, String status) {
        ObjectNode node = item("fileChange", id);
        ObjectNode change = node.putArray("changes").addObject().put("path", path);
        change.putObject("kind").put("type", "update").putNull("move_path");
        change.put("diff", diff);
        node.put("status", status);
        return node;
    }

    static List<String> splitWords(String text) {
        List<String> parts = new ArrayList<>();
        int start = 0;
        for (int i = 1; i < text.length(); i++) {
            if (text.charAt(i) == ' ') {
                parts.add(text.substring(start, i));
                start = i;
            }
        }
        if (start < text.length()) {
            parts.add(text.substring(start));
        }
        return parts;
    }

    private static List<String> splitLines(String text) {
        List<String> parts = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                parts.add(text.substring(start, i + 1));
                start = i + 1;
            }
        }
        if (start < text.length()) {
            parts.add(text.substring(start));
        }
        return parts;
    }
}
