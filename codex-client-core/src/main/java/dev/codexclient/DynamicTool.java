package dev.codexclient;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.internal.schema.RecordSchemas;
import dev.codexclient.protocol.DynamicToolCallParams;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * A tool the model can call, implemented in Java. Register it on the client builder; it is declared to codex on
 * every {@code thread/start} ({@code dynamicTools}), and each {@code item/tool/call} for its name runs it.
 *
 * <pre>{@code
 * record LookupTicket(String id) {}
 *
 * DynamicTool lookup = DynamicTool.of("lookup_ticket", "Look up a ticket by id", LookupTicket.class,
 *         args -> ToolResult.text(tickets.find(args.id()).summary()));
 * }</pre>
 *
 * <p>An exception thrown by the function becomes {@code success:false} with the exception's message, so the
 * model learns the call failed and the server never waits.
 */
@CodexExperimental("dynamicTools")
public final class DynamicTool {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    /** The full form of a tool's implementation: raw arguments and the call's context in, result out. */
    @FunctionalInterface
    public interface Implementation {
        /**
         * Runs one call of the tool, on the client's callback executor. An exception it throws, or a stage that fails,
         * becomes {@code success:false} with the exception's message.
         *
         * @param arguments the arguments the model passed, as raw JSON
         * @param call      the whole {@code item/tool/call} request: thread, turn and call ids, tool name, arguments
         * @param mapper    the client's user mapper ({@link CodexClientBuilder#objectMapper}), to bind the arguments
         * @return a stage that completes with the result for the model
         * @throws Exception when the call fails; the model is told it failed
         */
        CompletionStage<ToolResult> call(JsonNode arguments, DynamicToolCallParams call, ObjectMapper mapper)
                throws Exception;
    }

    private final String name;
    private final String description;
    private final ObjectNode inputSchema;
    private final Implementation implementation;

    private DynamicTool(String name, String description, ObjectNode inputSchema, Implementation implementation) {
        Objects.requireNonNull(name, "name");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("tool name must match " + NAME.pattern() + ": " + name);
        }
        this.name = name;
        this.description = Objects.requireNonNull(description, "description");
        this.inputSchema = Objects.requireNonNull(inputSchema, "inputSchema").deepCopy();
        this.implementation = Objects.requireNonNull(implementation, "implementation");
    }

    /**
     * A tool whose arguments bind to {@code argumentsType} (typically a record); the input schema is derived from
     * that type. The function runs on the client's callback executor.
     *
     * @param <T>           the type of the arguments
     * @param name          the tool's name, 1 to 64 letters, digits, {@code _} or {@code -}
     * @param description   what the tool does, for the model
     * @param argumentsType the class the arguments bind to, with the client's user mapper
     * @param function      computes the result from the bound arguments; it may block
     * @return the tool
     * @throws IllegalArgumentException when the name is not a valid tool name
     */
    public static <T> DynamicTool of(String name, String description, Class<T> argumentsType,
                                     Function<? super T, ToolResult> function) {
        Objects.requireNonNull(argumentsType, "argumentsType");
        Objects.requireNonNull(function, "function");
        ObjectNode schema = RecordSchemas.schemaOf(argumentsType);
        return new DynamicTool(name, description, schema, (args, call, mapper) ->
                CompletableFuture.completedFuture(function.apply(mapper.treeToValue(args, argumentsType))));
    }

    /**
     * A tool with a hand-written JSON input schema and raw JSON arguments.
     *
     * @param name        the tool's name, 1 to 64 letters, digits, {@code _} or {@code -}
     * @param description what the tool does, for the model
     * @param inputSchema the JSON schema of the arguments; it is copied
     * @param function    computes the result from the raw arguments, on the client's callback executor; it may block
     * @return the tool
     * @throws IllegalArgumentException when the name is not a valid tool name
     */
    public static DynamicTool ofJson(String name, String description, ObjectNode inputSchema,
                                     Function<JsonNode, ToolResult> function) {
        Objects.requireNonNull(function, "function");
        return new DynamicTool(name, description, inputSchema,
                (args, call, mapper) -> CompletableFuture.completedFuture(function.apply(args)));
    }

    /**
     * A tool with full control: asynchronous, and sees the call's thread, turn and call ids.
     *
     * @param name           the tool's name, 1 to 64 letters, digits, {@code _} or {@code -}
     * @param description    what the tool does, for the model
     * @param inputSchema    the JSON schema of the arguments; it is copied
     * @param implementation runs each call
     * @return the tool
     * @throws IllegalArgumentException when the name is not a valid tool name
     */
    public static DynamicTool ofAsync(String name, String description, ObjectNode inputSchema,
                                      Implementation implementation) {
        return new DynamicTool(name, description, inputSchema, implementation);
    }

    /** {@return the tool's name, as the model calls it} */
    public String name() {
        return name;
    }

    /** {@return what the tool does, as the model is told} */
    public String description() {
        return description;
    }

    /** {@return a copy of the JSON schema of the tool's arguments} Changing it does not change the tool. */
    public ObjectNode inputSchema() {
        return inputSchema.deepCopy();
    }

    /** {@return the JSON Schema of the tool's arguments, as it is sent} */
    public ObjectNode inputSchemaNode() {
        return inputSchema;
    }

    /**
     * {@return what runs each call of the tool} Lets an integration wrap a tool it is given (to time or observe its
     * calls) in a new tool of the same name, schema and description, built with {@link #ofAsync}.
     */
    public Implementation implementation() {
        return implementation;
    }

    @Override
    public String toString() {
        return "DynamicTool[" + name + "]";
    }
}
