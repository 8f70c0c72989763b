package dev.codexclient.langchain4j;

import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.protocol.TurnStatus;
import dev.langchain4j.model.chat.response.ChatResponseMetadata;
import java.util.List;
import java.util.Objects;

/**
 * The metadata of a {@link CodexChatModel}'s response: besides token usage and the finish reason, what codex did in
 * the turn (the commands it ran, the tool calls it made, its file changes, every item) and the thread and turn.
 *
 * <pre>{@code
 * ChatResponse response = codexModel.chat(request);
 * if (response.metadata() instanceof CodexChatResponseMetadata codex) {
 *     codex.commands().forEach(c -> log.info("ran {}", c.command()));
 * }
 * }</pre>
 */
public final class CodexChatResponseMetadata extends ChatResponseMetadata {
    private final String threadId;
    private final TurnStatus status;
    private final List<ThreadItem> items;

    private CodexChatResponseMetadata(Builder builder) {
        super(builder);
        this.threadId = Objects.requireNonNull(builder.threadId, "threadId");
        this.status = Objects.requireNonNull(builder.status, "status");
        this.items = List.copyOf(builder.items);
    }

    /** {@return the codex thread of the turn} */
    public String threadId() {
        return threadId;
    }

    /** {@return the codex turn; the response's id too} */
    public String turnId() {
        return id();
    }

    /** {@return how the turn ended} */
    public TurnStatus status() {
        return status;
    }

    /** {@return every item of the turn, in order} */
    public List<ThreadItem> items() {
        return items;
    }

    /** {@return the commands codex ran in the turn} */
    public List<ThreadItem.CommandExecution> commands() {
        return of(ThreadItem.CommandExecution.class);
    }

    /** {@return the tool calls codex made: {@link ThreadItem.DynamicToolCall} and {@link ThreadItem.McpToolCall} items} */
    public List<ThreadItem> toolCalls() {
        return items.stream().filter(i -> i instanceof ThreadItem.DynamicToolCall || i instanceof ThreadItem.McpToolCall)
                .toList();
    }

    /** {@return codex's file changes in the turn} */
    public List<ThreadItem.FileChange> fileChanges() {
        return of(ThreadItem.FileChange.class);
    }

    private <T> List<T> of(Class<T> type) {
        return items.stream().filter(type::isInstance).map(type::cast).toList();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CodexChatResponseMetadata that && super.equals(o) && threadId.equals(that.threadId)
                && status.equals(that.status) && items.equals(that.items);
    }

    @Override
    public int hashCode() {
        return Objects.hash(super.hashCode(), threadId, status, items);
    }

    static Builder codexBuilder() {
        return new Builder();
    }

    /**
     * {@return a builder with this metadata's values} LangChain4j rebuilds a response's metadata (AiServices sums the
     * token usage of a call); the copy keeps codex's part.
     */
    @Override
    public Builder toBuilder() {
        return (Builder) toBuilder(codexBuilder().threadId(threadId).status(status).items(items));
    }

    /** Builds the metadata of a codex turn. */
    public static final class Builder extends ChatResponseMetadata.Builder<Builder> {
        private String threadId;
        private TurnStatus status;
        private List<ThreadItem> items = List.of();

        private Builder() {
        }

        Builder threadId(String threadId) {
            this.threadId = threadId;
            return this;
        }

        Builder status(TurnStatus status) {
            this.status = status;
            return this;
        }

        Builder items(List<ThreadItem> items) {
            this.items = items;
            return this;
        }

        @Override
        public CodexChatResponseMetadata build() {
            return new CodexChatResponseMetadata(this);
        }
    }
}
