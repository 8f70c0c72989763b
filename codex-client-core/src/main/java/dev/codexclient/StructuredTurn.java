package dev.codexclient;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.errors.CodexOutputParseException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A turn started with an output schema derived from a Java type; its final message is parsed into that type.
 *
 * <pre>{@code
 * record Verdict(boolean safe, List<String> risks) {}
 * Verdict v = thread.startTurn("Is this diff safe?", Verdict.class).await(Duration.ofMinutes(5));
 * }</pre>
 *
 * @param <T> the output type
 */
public final class StructuredTurn<T> {
    private final CodexTurn turn;
    private final Class<T> type;
    private final ObjectMapper mapper;

    StructuredTurn(CodexTurn turn, Class<T> type, ObjectMapper mapper) {
        this.turn = turn;
        this.type = type;
        this.mapper = mapper;
    }

    /** {@return the underlying turn, for streaming and control} */
    public CodexTurn turn() {
        return turn;
    }

    /**
     * Waits for the turn and parses its final message.
     *
     * @param timeout the longest wait
     * @return the parsed output
     * @throws dev.codexclient.errors.CodexTurnFailedException when the turn failed
     * @throws CodexOutputParseException when the final message does not parse as {@code T}
     * @throws dev.codexclient.errors.CodexTimeoutException when the turn is still running after {@code timeout}
     */
    public T await(Duration timeout) {
        return parse(turn.await(timeout));
    }

    /** {@return the parsed output, asynchronously} The future fails like {@link #await(Duration)}. */
    public CompletableFuture<T> result() {
        return turn.result().thenApply(r -> {
            try {
                return parse(r);
            } catch (RuntimeException e) {
                throw new CompletionException(e);
            }
        });
    }

    /**
     * Parses a finished turn's final message.
     *
     * @param result the result of the turn
     * @return the parsed output
     * @throws dev.codexclient.errors.CodexTurnFailedException when the turn failed
     * @throws CodexOutputParseException when the final message does not parse as {@code T}
     */
    public T parse(TurnResult result) {
        result.orThrow();
        String text = result.finalText();
        try {
            return mapper.readValue(text, type);
        } catch (Exception e) {
            throw new CodexOutputParseException(type.getName(), text, e);
        }
    }
}
