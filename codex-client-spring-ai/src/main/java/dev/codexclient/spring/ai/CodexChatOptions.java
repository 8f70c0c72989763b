package dev.codexclient.spring.ai;

import dev.codexclient.protocol.SandboxPolicy;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.model.tool.DefaultToolCallingChatOptions;
import org.springframework.ai.model.tool.StructuredOutputChatOptions;
import org.springframework.ai.tool.ToolCallback;

/**
 * The options of a {@link CodexChatModel}'s prompt: Spring AI's tool-calling and structured-output options, and
 * codex's own settings of a turn: the conversation (which codex thread the prompt runs on), the model, the reasoning
 * effort, the sandbox policy and the working directory. A value left unset keeps the thread's.
 *
 * <pre>{@code
 * chat.prompt().user("Fix the failing test")
 *         .options(CodexChatOptions.builder().conversationId("ticket-42").effort("high")
 *                 .cwd("/srv/repo").build())
 *         .call().content();
 * }</pre>
 *
 * <p>{@link #getOutputSchema() The output schema} is codex's native structured output ({@code outputSchema} of
 * {@code turn/start}): with {@code ChatClient}'s {@code entity(...)} and
 * {@code AdvisorParams.ENABLE_NATIVE_STRUCTURED_OUTPUT}, Spring AI sets it from the entity's type. Codex has no
 * temperature, top-k, top-p, penalties, stop sequences or token limit: those options are kept, as Spring AI's
 * options are, and not sent.
 */
public final class CodexChatOptions extends DefaultToolCallingChatOptions implements StructuredOutputChatOptions {
    private final String conversationId;
    private final String effort;
    private final SandboxPolicy sandbox;
    private final String cwd;
    private final String outputSchema;

    private CodexChatOptions(Builder b, List<ToolCallback> toolCallbacks, Map<String, Object> toolContext, String model,
                             Double frequencyPenalty, Integer maxTokens, Double presencePenalty,
                             List<String> stopSequences, Double temperature, Integer topK, Double topP) {
        super(toolCallbacks == null ? List.of() : toolCallbacks, toolContext == null ? Map.of() : toolContext, model,
                frequencyPenalty, maxTokens, presencePenalty, stopSequences, temperature, topK, topP);
        this.conversationId = b.conversationId;
        this.effort = b.effort;
        this.sandbox = b.sandbox;
        this.cwd = b.cwd;
        this.outputSchema = b.outputSchema;
    }

    /** {@return a builder with nothing set} */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * {@return codex options with what {@code options} sets} The codex settings of {@code options} when it is a
     * {@code CodexChatOptions}; its model, tools, tool context and output schema otherwise.
     *
     * @param options any prompt's options; null for none
     */
    public static CodexChatOptions from(ChatOptions options) {
        if (options instanceof CodexChatOptions codex) {
            return codex;
        }
        Builder b = builder();
        if (options != null) {
            b.combineWith(options.mutate());
            if (options instanceof StructuredOutputChatOptions structured) {
                b.outputSchema(structured.getOutputSchema());
            }
        }
        return b.build();
    }

    /** {@return the conversation the prompt belongs to, null for a prompt on a thread of its own} */
    public String getConversationId() {
        return conversationId;
    }

    /** {@return the reasoning effort of the turn (codex's {@code effort}: low, medium, high, ...), null for the thread's} */
    public String getEffort() {
        return effort;
    }

    /** {@return the sandbox policy of the turn, null for the thread's} */
    public SandboxPolicy getSandbox() {
        return sandbox;
    }

    /** {@return the working directory of the turn, null for the thread's} */
    public String getCwd() {
        return cwd;
    }

    /** {@return the JSON Schema the answer must match (codex's native structured output), null for none} */
    @Override
    public String getOutputSchema() {
        return outputSchema;
    }

    @Override
    public Builder mutate() {
        Builder b = builder().conversationId(conversationId).effort(effort).sandbox(sandbox).cwd(cwd)
                .outputSchema(outputSchema);
        b.model(getModel()).frequencyPenalty(getFrequencyPenalty()).maxTokens(getMaxTokens())
                .presencePenalty(getPresencePenalty()).stopSequences(getStopSequences()).temperature(getTemperature())
                .topK(getTopK()).topP(getTopP());
        b.toolCallbacks(getToolCallbacks());
        b.toolContext(getToolContext());
        return b;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CodexChatOptions that && super.equals(o)
                && Objects.equals(conversationId, that.conversationId) && Objects.equals(effort, that.effort)
                && Objects.equals(sandbox, that.sandbox) && Objects.equals(cwd, that.cwd)
                && Objects.equals(outputSchema, that.outputSchema);
    }

    @Override
    public int hashCode() {
        return Objects.hash(super.hashCode(), conversationId, effort, sandbox, cwd, outputSchema);
    }

    /** Builds {@link CodexChatOptions}; Spring AI merges builders with {@link #combineWith}. */
    public static final class Builder extends DefaultToolCallingChatOptions.Builder<Builder>
            implements StructuredOutputChatOptions.Builder<Builder> {
        private String conversationId;
        private String effort;
        private SandboxPolicy sandbox;
        private String cwd;
        private String outputSchema;

        private Builder() {
        }

        /**
         * The conversation the prompt belongs to: prompts of one conversation run on one codex thread.
         *
         * @param conversationId the conversation; null for none
         * @return this builder
         */
        public Builder conversationId(String conversationId) {
            this.conversationId = conversationId;
            return this;
        }

        /**
         * The reasoning effort of the turn (and the thread's later turns, as codex keeps it).
         *
         * @param effort codex's effort: {@code low}, {@code medium}, {@code high}, ...; null for the thread's
         * @return this builder
         */
        public Builder effort(String effort) {
            this.effort = effort;
            return this;
        }

        /**
         * The sandbox policy of the turn (and the thread's later turns, as codex keeps it).
         *
         * @param sandbox the policy; null for the thread's
         * @return this builder
         */
        public Builder sandbox(SandboxPolicy sandbox) {
            this.sandbox = sandbox;
            return this;
        }

        /**
         * The working directory of the turn (and the thread's later turns, as codex keeps it).
         *
         * @param cwd the directory; null for the thread's
         * @return this builder
         */
        public Builder cwd(String cwd) {
            this.cwd = cwd;
            return this;
        }

        /**
         * The JSON Schema the answer must match: codex's native structured output.
         *
         * @param outputSchema the schema, as JSON; null for none
         * @return this builder
         */
        @Override
        public Builder outputSchema(String outputSchema) {
            this.outputSchema = outputSchema;
            return this;
        }

        @Override
        public Builder combineWith(org.springframework.ai.chat.prompt.ChatOptions.Builder<?> other) {
            super.combineWith(other);
            if (other instanceof Builder codex) {
                conversationId = codex.conversationId != null ? codex.conversationId : conversationId;
                effort = codex.effort != null ? codex.effort : effort;
                sandbox = codex.sandbox != null ? codex.sandbox : sandbox;
                cwd = codex.cwd != null ? codex.cwd : cwd;
                outputSchema = codex.outputSchema != null ? codex.outputSchema : outputSchema;
            } else if (other instanceof StructuredOutputChatOptions.Builder<?>) {
                ChatOptions built = other.build();
                if (built instanceof StructuredOutputChatOptions structured && structured.getOutputSchema() != null) {
                    outputSchema = structured.getOutputSchema();
                }
            }
            return this;
        }

        @Override
        public CodexChatOptions build() {
            // Spring AI's fields are the base builder's, readable here only.
            return new CodexChatOptions(this, toolCallbacks, toolContext, model, frequencyPenalty, maxTokens,
                    presencePenalty, stopSequences, temperature, topK, topP);
        }
    }

    /** {@return the tool callbacks, never null} */
    @Override
    public List<ToolCallback> getToolCallbacks() {
        List<ToolCallback> callbacks = super.getToolCallbacks();
        return callbacks == null ? List.of() : callbacks;
    }

    /** {@return the tool context, never null} */
    @Override
    public Map<String, Object> getToolContext() {
        Map<String, Object> context = super.getToolContext();
        return context == null ? Map.of() : context;
    }
}
