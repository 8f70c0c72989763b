package dev.codexclient.langchain4j;

import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.request.DefaultChatRequestParameters;
import java.util.Objects;
import java.util.Optional;

/**
 * Chat request parameters that carry the memory id of an AiServices call to a {@link CodexChatModel}, which runs the
 * conversation of that memory id on its codex thread. AiServices gives the memory id to its chat memory only; the
 * model's {@link CodexChatModel#memoryIdTransformer()} puts it here.
 */
public final class CodexChatRequestParameters extends DefaultChatRequestParameters {
    private final Object memoryId;

    private CodexChatRequestParameters(Builder builder) {
        super(builder);
        this.memoryId = builder.memoryId;
    }

    /** {@return the memory id of the conversation, empty for a request outside one} */
    public Optional<Object> memoryId() {
        return Optional.ofNullable(memoryId);
    }

    /** {@return a new builder} */
    public static Builder codexBuilder() {
        return new Builder();
    }

    @Override
    public ChatRequestParameters overrideWith(ChatRequestParameters that) {
        Builder merged = codexBuilder().overrideWith(this).overrideWith(that);
        merged.memoryId(that instanceof CodexChatRequestParameters c && c.memoryId != null ? c.memoryId : memoryId);
        return merged.build();
    }

    @Override
    public ChatRequestParameters defaultedBy(ChatRequestParameters that) {
        Builder merged = codexBuilder().overrideWith(that).overrideWith(this);
        merged.memoryId(memoryId != null ? memoryId
                : that instanceof CodexChatRequestParameters c ? c.memoryId : null);
        return merged.build();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CodexChatRequestParameters that && super.equals(o)
                && Objects.equals(memoryId, that.memoryId);
    }

    @Override
    public int hashCode() {
        return 31 * super.hashCode() + Objects.hashCode(memoryId);
    }

    /** Builds {@link CodexChatRequestParameters}. */
    public static final class Builder extends DefaultChatRequestParameters.Builder<Builder> {
        private Object memoryId;

        private Builder() {
        }

        /**
         * The memory id of the conversation.
         *
         * @param memoryId the id; null for none
         * @return this builder
         */
        public Builder memoryId(Object memoryId) {
            this.memoryId = memoryId;
            return this;
        }

        @Override
        public CodexChatRequestParameters build() {
            return new CodexChatRequestParameters(this);
        }
    }
}
