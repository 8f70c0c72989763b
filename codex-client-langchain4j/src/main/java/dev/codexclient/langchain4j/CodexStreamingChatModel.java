package dev.codexclient.langchain4j;

import dev.codexclient.Codex;
import dev.codexclient.conversation.AnswerPart;
import dev.langchain4j.model.ModelProvider;
import dev.langchain4j.model.chat.Capability;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.request.DefaultChatRequestParameters;
import dev.langchain4j.model.chat.response.PartialResponse;
import dev.langchain4j.model.chat.response.PartialResponseContext;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.chat.response.StreamingHandle;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Flow;
import java.util.function.BiFunction;

/**
 * Codex as a LangChain4j {@link StreamingChatModel}: each request runs a codex turn, and the handler gets the answer as
 * codex writes it. {@link CodexChatModel} is its blocking twin ({@link #blocking()}); both say what they do in the
 * same words (conversations, tools, structured output, listeners: see {@link CodexChatModel}).
 *
 * <pre>{@code
 * CodexStreamingChatModel codexModel = CodexStreamingChatModel.builder(codex).tools(new TicketTools()).build();
 * Assistant assistant = AiServices.builder(Assistant.class)
 *         .streamingChatModel(codexModel)
 *         .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20))
 *         .chatRequestTransformer(codexModel.memoryIdTransformer())
 *         .build();
 * TokenStream answer = assistant.chat("ticket-42", "Why does the build fail?");
 * }</pre>
 *
 * <p><b>Streaming.</b> Each piece of the answer reaches {@code onPartialResponse} (both forms: the one with a
 * {@link PartialResponseContext} gets a {@link StreamingHandle} whose {@code cancel()} interrupts the turn); an answer
 * codex sent whole comes as one piece. Pieces are handed over one at a time: while the handler runs, codex's further
 * deltas wait in the client's bounded publisher buffer (merged under {@code PublisherOverflow.COALESCE_DELTAS}).
 * Then {@code onCompleteResponse} with what codex did, or {@code onError} with the turn's
 * {@link dev.codexclient.errors.CodexTurnFailedException}. Handler methods run on the client's callback threads: they
 * may call the client, and must not block for long.
 */
public final class CodexStreamingChatModel implements StreamingChatModel, AutoCloseable {
    private final CodexTurns turns;
    private final CodexChatModel blocking;

    CodexStreamingChatModel(CodexTurns turns, CodexChatModel blocking) {
        this.turns = turns;
        this.blocking = blocking;
    }

    /**
     * {@return a builder of a model running its turns on {@code codex}: a client, or a pool}
     *
     * @param codex where the turns run; the client's approval policy decides their approvals
     */
    public static Builder builder(Codex codex) {
        return new Builder(codex);
    }

    /** Settings of a {@link CodexStreamingChatModel}. */
    public static final class Builder extends CodexModelBuilder<Builder> {
        private Builder(Codex codex) {
            super(codex);
        }

        /** {@return the model} */
        public CodexStreamingChatModel build() {
            return new CodexChatModel(new CodexTurns(this)).streaming();
        }
    }

    /** {@return the blocking twin of this model: the same conversations, tools and listeners} */
    public CodexChatModel blocking() {
        return blocking;
    }

    /**
     * {@return the AiServices request transformer that hands each call's memory id to this model} Give it to
     * {@code AiServices.builder(...).chatRequestTransformer(...)}.
     */
    public BiFunction<ChatRequest, Object, ChatRequest> memoryIdTransformer() {
        return CodexTurns.memoryIdTransformer();
    }

    @Override
    public ChatRequestParameters defaultRequestParameters() {
        return DefaultChatRequestParameters.EMPTY;
    }

    @Override
    public List<ChatModelListener> listeners() {
        return turns.listeners;
    }

    @Override
    public ModelProvider provider() {
        return ModelProvider.OTHER;
    }

    /** {@return what the model supports beyond text: a JSON schema for the answer (codex's {@code outputSchema})} */
    @Override
    public Set<Capability> supportedCapabilities() {
        return CodexTurns.capabilities();
    }

    @Override
    public void doChat(ChatRequest request, StreamingChatResponseHandler handler) {
        Flow.Publisher<AnswerPart> answer;
        try {
            answer = turns.conversations.stream(turns.turn(request));
        } catch (RuntimeException e) {
            handler.onError(e);
            return;
        }
        answer.subscribe(new HandlerRelay(handler, request.modelName()));
    }

    /** Hands the answer to the handler one piece at a time; the handle its partials get cancels the turn. */
    private final class HandlerRelay implements Flow.Subscriber<AnswerPart>, StreamingHandle {
        private final StreamingChatResponseHandler handler;
        private final String model;
        private volatile Flow.Subscription subscription;
        private volatile boolean cancelled;

        HandlerRelay(StreamingChatResponseHandler handler, String model) {
            this.handler = handler;
            this.model = model;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            if (cancelled) {
                s.cancel();
            } else {
                s.request(1);
            }
        }

        @Override
        public void onNext(AnswerPart part) {
            if (cancelled) {
                return;
            }
            try {
                if (part instanceof AnswerPart.Text text) {
                    handler.onPartialResponse(new PartialResponse(text.text()), new PartialResponseContext(this));
                } else {
                    var result = ((AnswerPart.End) part).result();
                    handler.onCompleteResponse(turns.response(result, result.finalText(), model));
                }
            } catch (RuntimeException e) {
                // A handler that throws ends the stream, as LangChain4j's own models end it.
                cancel();
                handler.onError(e);
                return;
            }
            if (!cancelled) {
                subscription.request(1);
            }
        }

        @Override
        public void onError(Throwable error) {
            if (!cancelled) {
                handler.onError(error);
            }
        }

        @Override
        public void onComplete() {
        }

        @Override
        public void cancel() {
            cancelled = true;
            Flow.Subscription s = subscription;
            if (s != null) {
                s.cancel();
            }
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }
    }

    /** Stops following the client's notifications; the blocking twin with it. The client and its threads stay. */
    @Override
    public void close() {
        turns.close();
    }
}
