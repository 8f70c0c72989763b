package dev.codexclient.spring.ai;

import dev.codexclient.CodexExperimental;
import dev.codexclient.DynamicTool;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.execution.DefaultToolExecutionExceptionProcessor;
import org.springframework.ai.tool.execution.ToolExecutionExceptionProcessor;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;

/**
 * Spring AI tools as codex dynamic tools: {@code @Tool} methods of your beans, any {@link ToolCallback}, and
 * {@link ToolCallbackProvider}s such as the MCP client's, with their names, descriptions and input schemas. A call
 * from codex runs the callback with the call's JSON arguments and a {@link org.springframework.ai.chat.model.ToolContext}
 * holding the codex thread, turn and call ({@link CodexToolContext}); its text goes back to the model. A tool that
 * throws is reported to codex as a failed call, with the text Spring AI's {@link ToolExecutionExceptionProcessor} makes
 * of the exception (its message, by default).
 *
 * <p>For every thread of a client, or for one thread:
 * <pre>{@code
 * CodexClientBuilder builder = CodexClient.builder().experimentalApi(true);
 * SpringAiTools.fromObjects(new TicketTools()).forEach(builder::tool);
 *
 * CodexThread thread = codex.startThread(params, SpringAiTools.from(mcpToolCallbackProvider));
 * }</pre>
 *
 * <p>Dynamic tools are an experimental codex API: the client needs {@code experimentalApi(true)}. Tool names must be
 * 1 to 64 letters, digits, {@code _} or {@code -} (the MCP client's prefixed names are); a callback's
 * {@code returnDirect} has no codex equivalent, the model always sees the result.
 */
@CodexExperimental("dynamicTools")
public final class SpringAiTools {
    private static final Converter DEFAULTS = new Converter(new DefaultToolExecutionExceptionProcessor(false), Map.of());

    private SpringAiTools() {
    }

    /**
     * {@return the tools of the {@code @Tool} methods of these objects} (through {@link MethodToolCallbackProvider})
     *
     * @param toolObjects objects with {@code @Tool} methods, e.g. Spring beans
     */
    public static List<DynamicTool> fromObjects(Object... toolObjects) {
        return DEFAULTS.fromObjects(toolObjects);
    }

    /**
     * {@return the tools of these providers, in order}
     *
     * @param providers the providers, e.g. a {@link MethodToolCallbackProvider} or the MCP client's
     */
    public static List<DynamicTool> from(ToolCallbackProvider... providers) {
        return DEFAULTS.from(providers);
    }

    /**
     * {@return codex tools of these callbacks, in order}
     *
     * @param callbacks the callbacks
     */
    public static List<DynamicTool> from(List<? extends ToolCallback> callbacks) {
        return DEFAULTS.from(callbacks);
    }

    /**
     * {@return the codex tool of one callback}
     *
     * @param callback the callback
     */
    public static DynamicTool from(ToolCallback callback) {
        return DEFAULTS.from(callback);
    }

    /**
     * {@return a converter with the defaults} Its settings give a tool's exception processor and context entries of
     * your own.
     */
    public static Converter converter() {
        return DEFAULTS;
    }

    /**
     * Makes codex tools of Spring AI tools, with an exception processor and context entries of your choice. Immutable:
     * each setting returns a new converter.
     */
    public static final class Converter {
        private final ToolExecutionExceptionProcessor exceptionProcessor;
        private final Map<String, Object> toolContext;

        Converter(ToolExecutionExceptionProcessor exceptionProcessor, Map<String, Object> toolContext) {
            this.exceptionProcessor = exceptionProcessor;
            this.toolContext = toolContext;
        }

        /**
         * {@return a converter whose tools turn a {@link org.springframework.ai.tool.execution.ToolExecutionException}
         * into the text codex gets with this processor} One that rethrows fails the call with the exception's message.
         *
         * @param processor the processor, e.g. the application context's bean
         */
        public Converter exceptionProcessor(ToolExecutionExceptionProcessor processor) {
            return new Converter(Objects.requireNonNull(processor, "processor"), toolContext);
        }

        /**
         * {@return a converter whose tools find these entries in their context, beside codex's own}
         *
         * @param entries the entries; copied
         */
        public Converter toolContext(Map<String, ?> entries) {
            return new Converter(exceptionProcessor, Map.copyOf(entries));
        }

        ToolExecutionExceptionProcessor exceptionProcessor() {
            return exceptionProcessor;
        }

        Map<String, Object> toolContext() {
            return toolContext;
        }

        /**
         * {@return the tools of the {@code @Tool} methods of these objects}
         *
         * @param toolObjects objects with {@code @Tool} methods
         */
        public List<DynamicTool> fromObjects(Object... toolObjects) {
            return from(MethodToolCallbackProvider.builder().toolObjects(toolObjects).build());
        }

        /**
         * {@return the tools of these providers, in order}
         *
         * @param providers the providers
         */
        public List<DynamicTool> from(ToolCallbackProvider... providers) {
            List<ToolCallback> callbacks = new ArrayList<>();
            for (ToolCallbackProvider provider : providers) {
                callbacks.addAll(Arrays.asList(provider.getToolCallbacks()));
            }
            return from(callbacks);
        }

        /**
         * {@return codex tools of these callbacks, in order}
         *
         * @param callbacks the callbacks
         */
        public List<DynamicTool> from(List<? extends ToolCallback> callbacks) {
            List<DynamicTool> tools = new ArrayList<>(callbacks.size());
            callbacks.forEach(c -> tools.add(from(c)));
            return List.copyOf(tools);
        }

        /**
         * {@return the codex tool of one callback}
         *
         * @param callback the callback
         * @throws IllegalArgumentException when its name is not a valid codex tool name, or its input schema is not
         *                                  a JSON object
         */
        public DynamicTool from(ToolCallback callback) {
            Objects.requireNonNull(callback, "callback");
            ToolCallbackInvoker.Binding binding = new ToolCallbackInvoker.Binding(callback, toolContext);
            return ToolCallbackInvoker.tool(callback.getToolDefinition(), exceptionProcessor, call -> binding);
        }
    }
}
