package dev.codexclient.testkit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One scripted answer of the {@link ScriptedModelServer} to one {@code POST /v1/responses}: a streamed response made
 * of output items (assistant text, tool calls), an HTTP failure, or a stall.
 *
 * <p>Steps are immutable values; the {@code with...} methods return modified copies.
 *
 * <pre>{@code
 * model.enqueue(ModelStep.exec("echo hi > out.txt"));
 * model.enqueue(ModelStep.reply("Done. ✅").withUsage(120, 8));
 * }</pre>
 */
public final class ModelStep {

    static final ObjectMapper JSON = new ObjectMapper();

    /** The default number of code points per {@code response.output_text.delta} event. */
    public static final int DEFAULT_CHUNK_CODE_POINTS = 8;

    /** What kind of answer a step produces. */
    public enum Kind {
        /** A {@code 200 text/event-stream} response with output items. */
        RESPONSE,
        /** A non-2xx HTTP status with a body. */
        FAIL,
        /** Nothing is sent until the stall ends or the server closes; then the connection is dropped. */
        STALL
    }

    /** One output item of a streamed response. */
    public sealed interface Output permits Message, FunctionCall {
    }

    /**
     * An assistant message, streamed as {@code response.output_text.delta} chunks.
     *
     * @param text the full message text
     */
    public record Message(String text) implements Output {
        /**
         * Checks the text.
         *
         * @param text the full message text
         */
        public Message {
            Objects.requireNonNull(text, "text");
        }
    }

    /**
     * A {@code function_call} output item.
     *
     * @param name the tool name ({@code exec_command} or a dynamic tool's name)
     * @param argumentsJson the arguments as a JSON document in a string, as the Responses API sends them
     * @param callId the call id, or empty to let the server allocate a unique one
     */
    public record FunctionCall(String name, String argumentsJson, Optional<String> callId) implements Output {
        /**
         * Checks the members.
         *
         * @param name the tool name
         * @param argumentsJson the arguments as a JSON document in a string
         * @param callId the call id, or empty to let the server allocate one
         */
        public FunctionCall {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(argumentsJson, "argumentsJson");
            Objects.requireNonNull(callId, "callId");
        }
    }

    private final Kind kind;
    private final List<Output> outputs;
    private final int chunkCodePoints;
    private final long inputTokens;
    private final long outputTokens;
    private final long cachedInputTokens;
    private final long reasoningTokens;
    private final int httpStatus;
    private final String failureBody;
    private final Duration stall;
    private final boolean echoAuthorization;

    private ModelStep(Kind kind, List<Output> outputs, int chunkCodePoints, long inputTokens, long outputTokens,
            long cachedInputTokens, long reasoningTokens, int httpStatus, String failureBody, Duration stall) {
        this(kind, outputs, chunkCodePoints, inputTokens, outputTokens, cachedInputTokens, reasoningTokens, httpStatus,
                failureBody, stall, false);
    }

    private ModelStep(Kind kind, List<Output> outputs, int chunkCodePoints, long inputTokens, long outputTokens,
            long cachedInputTokens, long reasoningTokens, int httpStatus, String failureBody, Duration stall,
            boolean echoAuthorization) {
        this.kind = kind;
        this.outputs = List.copyOf(outputs);
        this.chunkCodePoints = chunkCodePoints;
        this.inputTokens = inputTokens;
        this.outputTokens = outputTokens;
        this.cachedInputTokens = cachedInputTokens;
        this.reasoningTokens = reasoningTokens;
        this.httpStatus = httpStatus;
        this.failureBody = failureBody;
        this.stall = stall;
        this.echoAuthorization = echoAuthorization;
    }

    private static ModelStep response(List<Output> outputs) {
        return new ModelStep(Kind.RESPONSE, outputs, DEFAULT_CHUNK_CODE_POINTS, 10, 5, 0, 0, 200, "", Duration.ZERO);
    }

    /**
     * An assistant message streamed in chunks of {@link #DEFAULT_CHUNK_CODE_POINTS} code points.
     *
     * @param text the message's text
     * @return the step
     */
    public static ModelStep reply(String text) {
        return response(List.of(new Message(text)));
    }

    /**
     * An assistant message whose text is the JSON serialization of {@code value} (a {@code String} is taken as an
     * already serialized document), as a model answers a turn that has an {@code outputSchema}.
     *
     * @param value the value to serialize: any Jackson-serialisable value, or a string holding a JSON document
     * @return the step
     */
    public static ModelStep json(Object value) {
        return reply(value instanceof String s ? s : toJson(value));
    }

    /**
     * A call of codex's {@code exec_command} tool running {@code cmd} in the thread's working directory. Codex runs it
     * in a login shell by default, so the machine's shell profile may add output; for byte-exact output use
     * {@code callTool("exec_command", Map.of("cmd", cmd, "login", false))}.
     *
     * @param cmd the shell command line
     * @return the step
     */
    public static ModelStep exec(String cmd) {
        ObjectNode args = JSON.createObjectNode().put("cmd", Objects.requireNonNull(cmd, "cmd"));
        return response(List.of(new FunctionCall("exec_command", args.toString(), Optional.empty())));
    }

    /**
     * A call of codex's {@code exec_command} tool running {@code cmd} in {@code workdir}.
     *
     * @param cmd the shell command line
     * @param workdir the working directory to run in
     * @return the step
     */
    public static ModelStep exec(String cmd, String workdir) {
        ObjectNode args = JSON.createObjectNode()
                .put("cmd", Objects.requireNonNull(cmd, "cmd"))
                .put("workdir", Objects.requireNonNull(workdir, "workdir"));
        return response(List.of(new FunctionCall("exec_command", args.toString(), Optional.empty())));
    }

    /**
     * A call of the tool {@code name} (typically a dynamic tool registered on {@code thread/start}) with
     * {@code arguments} serialized as JSON; a {@code String} is taken as an already serialized document.
     *
     * @param name the tool's name
     * @param arguments the arguments: any Jackson-serialisable value (a string is taken as an already serialized JSON document)
     * @return the step
     */
    public static ModelStep callTool(String name, Object arguments) {
        String args = arguments instanceof String s ? s : toJson(arguments);
        return response(List.of(new FunctionCall(name, args, Optional.empty())));
    }

    /**
     * A patch applied the way codex's models do it: {@code exec_command} running {@code apply_patch} with the
     * patch in a quoted heredoc. Codex turns this into a {@code fileChange} item with a file-change approval.
     *
     * @param patch a patch in codex's {@code *** Begin Patch ... *** End Patch} format, see {@link #addFilePatch}
     * @return the step
     */
    public static ModelStep applyPatch(String patch) {
        String body = patch.endsWith("\n") ? patch : patch + "\n";
        if (body.lines().anyMatch("EOF"::equals)) {
            throw new IllegalArgumentException("the patch must not contain a line consisting of EOF");
        }
        return exec("apply_patch <<'EOF'\n" + body + "EOF\n");
    }

    /**
     * Like {@link #applyPatch(String)}, run in {@code workdir}.
     *
     * @param patch a patch in codex's {@code *** Begin Patch} format
     * @param workdir the working directory to run in
     * @return the step
     */
    public static ModelStep applyPatch(String patch, String workdir) {
        String body = patch.endsWith("\n") ? patch : patch + "\n";
        if (body.lines().anyMatch("EOF"::equals)) {
            throw new IllegalArgumentException("the patch must not contain a line consisting of EOF");
        }
        return exec("apply_patch <<'EOF'\n" + body + "EOF\n", workdir);
    }

    /**
     * A patch in codex's format that creates the file {@code path} (relative to the working directory).
     *
     * @param path the path of the new file, relative to the working directory
     * @param content the new file's content
     * @return the patch
     */
    public static String addFilePatch(String path, String content) {
        StringBuilder patch = new StringBuilder("*** Begin Patch\n*** Add File: ").append(path).append('\n');
        content.lines().forEach(line -> patch.append('+').append(line).append('\n'));
        return patch.append("*** End Patch\n").toString();
    }

    /**
     * One response carrying the outputs of all {@code steps} in order, e.g. two tool calls at once, or a message
     * followed by a call. Usage and chunking are taken from the first step. Only response steps can be combined.
     *
     * @param steps the steps whose outputs make up the response
     * @return the combined step
     */
    public static ModelStep of(ModelStep... steps) {
        if (steps.length == 0) {
            throw new IllegalArgumentException("at least one step is needed");
        }
        List<Output> all = new ArrayList<>();
        for (ModelStep step : steps) {
            if (step.kind != Kind.RESPONSE) {
                throw new IllegalArgumentException("only response steps can be combined, got " + step.kind);
            }
            all.addAll(step.outputs);
        }
        ModelStep first = steps[0];
        return new ModelStep(Kind.RESPONSE, all, first.chunkCodePoints, first.inputTokens, first.outputTokens,
                first.cachedInputTokens, first.reasoningTokens, 200, "", Duration.ZERO);
    }

    /**
     * A response made of the given output items.
     *
     * @param outputs the output items, in order
     * @return the step
     */
    public static ModelStep outputs(List<Output> outputs) {
        return response(outputs);
    }

    /**
     * An HTTP error answer: {@code httpStatus} (400..599) with {@code body} as {@code application/json}.
     *
     * @param httpStatus the HTTP status, 400 to 599
     * @param body the response body (JSON)
     * @return the step
     */
    public static ModelStep fail(int httpStatus, String body) {
        if (httpStatus < 400 || httpStatus > 599) {
            throw new IllegalArgumentException("httpStatus must be 400..599, got " + httpStatus);
        }
        return new ModelStep(Kind.FAIL, List.of(), DEFAULT_CHUNK_CODE_POINTS, 0, 0, 0, 0, httpStatus,
                Objects.requireNonNull(body, "body"), Duration.ZERO);
    }

    /**
     * An HTTP error answer whose message repeats the request's {@code Authorization} header, as some providers and
     * proxies do when they reject a request: {@code {"error":{"message":"... authorization=Bearer KEY ..."}}}. For
     * tests that a credential the server echoes back is masked in everything the client reports.
     *
     * @param httpStatus the HTTP status, 400 to 599
     * @return the step
     */
    public static ModelStep failEchoingAuthorization(int httpStatus) {
        ModelStep fail = fail(httpStatus, "");
        return new ModelStep(Kind.FAIL, List.of(), DEFAULT_CHUNK_CODE_POINTS, 0, 0, 0, 0, fail.httpStatus, "",
                Duration.ZERO, true);
    }

    /**
     * Holds the request open without answering for {@code duration} (or until the server closes), then drops the
     * connection. Use it to keep a turn in progress, e.g. to interrupt it.
     *
     * @param duration how long to hold the request
     * @return the step
     */
    public static ModelStep stall(Duration duration) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("duration must not be negative");
        }
        return new ModelStep(Kind.STALL, List.of(), DEFAULT_CHUNK_CODE_POINTS, 0, 0, 0, 0, 0, "", duration);
    }

    /**
     * A copy reporting these token counts in {@code response.completed}.
     *
     * @param inputTokens input tokens
     * @param outputTokens output tokens
     * @return the new step
     */
    public ModelStep withUsage(long inputTokens, long outputTokens) {
        return withUsage(inputTokens, 0, outputTokens, 0);
    }

    /**
     * A copy reporting these token counts (including cached input and reasoning output) in {@code response.completed}.
     *
     * @param inputTokens input tokens
     * @param cachedInputTokens input tokens served from the cache (part of {@code inputTokens})
     * @param outputTokens output tokens
     * @param reasoningTokens reasoning output tokens (part of {@code outputTokens})
     * @return the new step
     */
    public ModelStep withUsage(long inputTokens, long cachedInputTokens, long outputTokens, long reasoningTokens) {
        if (inputTokens < 0 || cachedInputTokens < 0 || outputTokens < 0 || reasoningTokens < 0) {
            throw new IllegalArgumentException("token counts must not be negative");
        }
        return new ModelStep(kind, outputs, chunkCodePoints, inputTokens, outputTokens, cachedInputTokens,
                reasoningTokens, httpStatus, failureBody, stall, echoAuthorization);
    }

    /**
     * A copy streaming message text in deltas of at most {@code codePoints} code points (never splitting one).
     *
     * @param codePoints the most code points in one delta (at least 1)
     * @return the new step
     */
    public ModelStep withChunkSize(int codePoints) {
        if (codePoints < 1) {
            throw new IllegalArgumentException("codePoints must be positive, got " + codePoints);
        }
        return new ModelStep(kind, outputs, codePoints, inputTokens, outputTokens, cachedInputTokens,
                reasoningTokens, httpStatus, failureBody, stall, echoAuthorization);
    }

    /**
     * A copy whose messages come whole, in {@code response.output_item.done}, without any
     * {@code response.output_text.delta}: codex then reports the message as a completed item with no
     * {@code item/agentMessage/delta} before it.
     *
     * @return the new step
     */
    public ModelStep withoutDeltas() {
        return new ModelStep(kind, outputs, 0, inputTokens, outputTokens, cachedInputTokens, reasoningTokens,
                httpStatus, failureBody, stall, echoAuthorization);
    }

    /** {@return the kind of answer} */
    public Kind kind() {
        return kind;
    }

    /** {@return the output items of a {@link Kind#RESPONSE}; empty for the other kinds} */
    public List<Output> outputItems() {
        return Collections.unmodifiableList(outputs);
    }

    /** {@return the number of code points per text delta; 0 for messages without deltas ({@link #withoutDeltas()})} */
    public int chunkCodePoints() {
        return chunkCodePoints;
    }

    /** {@return input tokens reported in {@code response.completed}} */
    public long inputTokens() {
        return inputTokens;
    }

    /** {@return output tokens reported in {@code response.completed}} */
    public long outputTokens() {
        return outputTokens;
    }

    /** {@return cached input tokens reported in {@code response.completed}} */
    public long cachedInputTokens() {
        return cachedInputTokens;
    }

    /** {@return reasoning output tokens reported in {@code response.completed}} */
    public long reasoningTokens() {
        return reasoningTokens;
    }

    /** {@return the HTTP status of a {@link Kind#FAIL}; 200 for a response, 0 for a stall} */
    public int httpStatus() {
        return httpStatus;
    }

    /** {@return the body of a {@link Kind#FAIL}; empty otherwise, and for one that echoes the request's header} */
    public String failureBody() {
        return failureBody;
    }

    /** {@return whether this {@link Kind#FAIL} answers with the request's {@code Authorization} header in its body} */
    public boolean echoesAuthorization() {
        return echoAuthorization;
    }

    /** {@return how long a {@link Kind#STALL} holds the request; zero otherwise} */
    public Duration stallDuration() {
        return stall;
    }

    @Override
    public String toString() {
        return switch (kind) {
            case RESPONSE -> "ModelStep.response" + outputs;
            case FAIL -> "ModelStep.fail(" + httpStatus + ")";
            case STALL -> "ModelStep.stall(" + stall + ")";
        };
    }

    private static String toJson(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot serialize " + value.getClass().getName() + " as JSON", e);
        }
    }

    /** Splits {@code text} into pieces of at most {@code codePoints} code points; never splits a surrogate pair. */
    static List<String> chunks(String text, int codePoints) {
        List<String> out = new ArrayList<>();
        int start = 0;
        while (start < text.length()) {
            int end = start;
            for (int i = 0; i < codePoints && end < text.length(); i++) {
                end = text.offsetByCodePoints(end, 1);
            }
            out.add(text.substring(start, end));
            start = end;
        }
        return out;
    }
}
