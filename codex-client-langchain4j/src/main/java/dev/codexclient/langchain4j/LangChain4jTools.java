package dev.codexclient.langchain4j;

import dev.codexclient.CodexExperimental;
import dev.codexclient.DynamicTool;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.agent.tool.ToolSpecifications;
import dev.langchain4j.service.tool.DefaultToolExecutor;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.langchain4j.service.tool.ToolProvider;
import dev.langchain4j.service.tool.ToolProviderRequest;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * LangChain4j tools as codex dynamic tools: objects with {@code @Tool} methods, a {@link ToolSpecification} with its
 * {@link ToolExecutor}, and what a {@link ToolProvider} provides, with their names, descriptions and parameters. A
 * call from codex runs the executor as AiServices does (see {@link CodexToolContext} for what the tool finds in its
 * invocation); its text goes back to the model. A {@code @Tool} method that throws is reported to codex as a failed
 * call, with the exception's message, which is what LangChain4j tells its models.
 *
 * <pre>{@code
 * CodexClientBuilder builder = CodexClient.builder().experimentalApi(true);
 * LangChain4jTools.fromObjects(new TicketTools()).forEach(builder::tool);
 *
 * CodexThread thread = codex.startThread(params, LangChain4jTools.from(Map.of(specification, executor)));
 * }</pre>
 *
 * <p>Dynamic tools are an experimental codex API: the client needs {@code experimentalApi(true)}. Tool names must be
 * 1 to 64 letters, digits, {@code _} or {@code -}.
 */
@CodexExperimental("dynamicTools")
public final class LangChain4jTools {
    private LangChain4jTools() {
    }

    /**
     * {@return the tools of the {@code @Tool} methods of these objects, each object's by name}
     *
     * @param toolObjects objects with {@code @Tool} methods
     * @throws IllegalArgumentException when a name is not a valid codex tool name
     */
    public static List<DynamicTool> fromObjects(Object... toolObjects) {
        return from(executorsOf(toolObjects));
    }

    /**
     * {@return codex tools of these specifications, each run by its executor}
     *
     * @param tools the specifications and their executors
     * @throws IllegalArgumentException when a name is not a valid codex tool name
     */
    public static List<DynamicTool> from(Map<ToolSpecification, ToolExecutor> tools) {
        List<DynamicTool> converted = new ArrayList<>(tools.size());
        tools.forEach((specification, executor) -> converted.add(from(specification, executor)));
        return List.copyOf(converted);
    }

    /**
     * {@return the codex tool of one specification, run by {@code executor}}
     *
     * @param specification the tool's name, description and parameters
     * @param executor      runs each call
     * @throws IllegalArgumentException when the name is not a valid codex tool name
     */
    public static DynamicTool from(ToolSpecification specification, ToolExecutor executor) {
        Objects.requireNonNull(specification, "specification");
        ToolInvoker.Binding binding = new ToolInvoker.Binding(Objects.requireNonNull(executor, "executor"), null);
        return ToolInvoker.tool(specification, call -> binding);
    }

    /**
     * {@return the tools a provider gives for {@code request}} Codex declares a thread's tools when it starts, so the
     * provider is asked once, for the thread, not before each message.
     *
     * @param provider the provider, e.g. LangChain4j's MCP tool provider
     * @param request  what the provider decides by: the memory id and the first user message
     */
    public static List<DynamicTool> from(ToolProvider provider, ToolProviderRequest request) {
        return from(provider.provideTools(request).tools());
    }

    /** The specifications and executors of the {@code @Tool} methods of these objects, in order. */
    static Map<ToolSpecification, ToolExecutor> executorsOf(Object... toolObjects) {
        Map<ToolSpecification, ToolExecutor> tools = new LinkedHashMap<>();
        for (Object object : toolObjects) {
            Method[] methods = object.getClass().getDeclaredMethods();
            // The JVM lists methods in no set order: by name, so a thread declares its tools the same way each time.
            java.util.Arrays.sort(methods, java.util.Comparator.comparing(Method::getName));
            for (Method method : methods) {
                if (method.isAnnotationPresent(Tool.class)) {
                    tools.put(ToolSpecifications.toolSpecificationFrom(method), new DefaultToolExecutor(object, method));
                }
            }
        }
        return tools;
    }
}
