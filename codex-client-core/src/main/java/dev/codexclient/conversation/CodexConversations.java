package dev.codexclient.conversation;

import dev.codexclient.Codex;
import dev.codexclient.CodexExperimental;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.DynamicTool;
import dev.codexclient.Subscription;
import dev.codexclient.TurnResult;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadResumeParams;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.protocol.TurnStartParams;
import dev.codexclient.protocol.UserInput;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Conversations kept on codex threads, and the turn runner of the chat integrations. Each conversation id (a chat
 * session, a user, a ticket) maps to one codex thread, which holds the conversation's history, so an application
 * keeps nothing but that mapping. The first turn of a conversation starts its thread, with the conversation's own
 * tools; a later turn finds the thread loaded, or resumes it (after the server unloaded it, or in another process when
 * the {@link Store} outlives this one). Turns of one conversation run one after another, in the order they were asked
 * for; different conversations run at once.
 *
 * <p>A chat integration (the Spring AI and LangChain4j models are) hands each turn over as a
 * {@link ConversationTurn}: the chat history its framework keeps, of which codex is sent only what it has not seen
 * (the runner records what each conversation's turns sent, whether they completed, failed or were interrupted, and
 * the answers), and the runner starts it ({@link #startTurn(ConversationTurn)}), waits for it with a bound and
 * interrupts it past that bound ({@link #call(ConversationTurn, Duration)}), or streams its answer with
 * backpressure ({@link #stream(ConversationTurn)}).
 *
 * <pre>{@code
 * CodexConversations conversations = CodexConversations.builder(codex).build();
 * TurnResult answer = conversations.call(ConversationTurn.builder(List.of(ConversationMessage.user("What did I ask?")))
 *         .conversationId("user-42").build(), Duration.ofMinutes(5));
 * }</pre>
 *
 * <p>Threading: every method may be called from any thread; only {@link #call} blocks. The mapping is written to the
 * store when a thread starts, from a dependent of the {@code thread/start} call. A small entry per conversation (the
 * tail of its turns, its loaded thread, what codex has seen of it, the integration's attachments) stays in memory,
 * for at most {@link Builder#maxConversations(int)} conversations: past that, the least recently used idle one is let
 * go of (its thread id stays in the store; its next turn resumes the thread).
 */
public final class CodexConversations implements AutoCloseable {
    /** The default of {@link Builder#maxConversations(int)}. */
    public static final int DEFAULT_MAX_CONVERSATIONS = 10_000;

    /**
     * Where a conversation's thread id is kept. The default keeps it in memory; one backed by a database lets a
     * conversation go on in a later process, which resumes the thread codex stored.
     */
    public interface Store {
        /**
         * {@return the id of the conversation's thread, empty for a conversation without one}
         *
         * @param conversationId the conversation
         */
        Optional<String> threadId(String conversationId);

        /**
         * Records the thread a conversation started.
         *
         * @param conversationId the conversation
         * @param threadId       its codex thread
         */
        void put(String conversationId, String threadId);

        /**
         * Forgets a conversation: its next turn starts a new thread.
         *
         * @param conversationId the conversation
         */
        void remove(String conversationId);

        /** {@return a store in this process's memory} */
        static Store inMemory() {
            Map<String, String> threads = new ConcurrentHashMap<>();
            return new Store() {
                @Override
                public Optional<String> threadId(String conversationId) {
                    return Optional.ofNullable(threads.get(conversationId));
                }

                @Override
                public void put(String conversationId, String threadId) {
                    threads.put(conversationId, threadId);
                }

                @Override
                public void remove(String conversationId) {
                    threads.remove(conversationId);
                }
            };
        }
    }

    /**
     * The thread a turn runs on, as the turn's params are made.
     *
     * @param thread  the conversation's thread
     * @param started whether the thread was started for this turn: the conversation's first turn on codex, whose
     *                input may have to carry what came before (a history kept elsewhere)
     */
    public record Opened(CodexThread thread, boolean started) {
        /**
         * Checks the thread.
         *
         * @param thread  the conversation's thread
         * @param started whether the thread was started for this turn
         */
        public Opened {
            Objects.requireNonNull(thread, "thread");
        }
    }

    /** One conversation: the tail of its turns, the thread loaded for it, what codex has seen, attachments. */
    private static final class Conversation {
        // Guarded by this.
        private CompletableFuture<Void> tail = CompletableFuture.completedFuture(null);
        private volatile CodexThread loaded;
        /** The history codex has seen, oldest first; written by the conversation's turns, one at a time. */
        private volatile List<ConversationMessage> seen = List.of();
        private final Map<Class<?>, Object> attachments = new ConcurrentHashMap<>();

        synchronized boolean idle() {
            return tail.isDone();
        }
    }

    private final Codex codex;
    private final Store store;
    private final int maxConversations;
    // Guarded by itself; in access order, so the eldest is the least recently used.
    private final LinkedHashMap<String, Conversation> conversations = new LinkedHashMap<>(16, 0.75f, true);
    /** The conversations by the thread loaded for them, to let go of a thread the server closes. */
    private final Map<String, Conversation> byThread = new ConcurrentHashMap<>();
    private final Subscription closings;

    private CodexConversations(Builder b) {
        this.codex = b.codex;
        this.store = b.store;
        this.maxConversations = b.maxConversations;
        // A thread the server unloaded must be resumed (and its tools declared again) before its next turn.
        this.closings = codex.onNotification(n -> {
            if (n instanceof ServerNotification.ThreadClosed closed) {
                Conversation c = byThread.remove(closed.params().threadId());
                if (c != null) {
                    c.loaded = null;
                }
            }
        });
    }

    /**
     * {@return a builder of conversations on the threads of {@code codex}: a client, or a pool}
     *
     * @param codex where the threads that hold the conversations run
     */
    public static Builder builder(Codex codex) {
        return new Builder(codex);
    }

    /** Settings of {@link CodexConversations}. */
    public static final class Builder {
        private final Codex codex;
        private Store store = Store.inMemory();
        private int maxConversations = DEFAULT_MAX_CONVERSATIONS;

        private Builder(Codex codex) {
            this.codex = Objects.requireNonNull(codex, "codex");
        }

        /**
         * Where conversations' thread ids are kept (default: {@link Store#inMemory()}).
         *
         * @param store the store
         * @return this builder
         */
        public Builder store(Store store) {
            this.store = Objects.requireNonNull(store, "store");
            return this;
        }

        /**
         * The most conversations kept in memory (default {@value #DEFAULT_MAX_CONVERSATIONS}); past it, the least
         * recently used one without a running turn is let go of. Its thread id stays in the store, so its next turn
         * resumes the thread; what codex had seen of it is then counted from its history's last answer.
         *
         * @param max the bound, positive
         * @return this builder
         */
        public Builder maxConversations(int max) {
            if (max <= 0) {
                throw new IllegalArgumentException("maxConversations must be positive: " + max);
            }
            this.maxConversations = max;
            return this;
        }

        /** {@return the conversations} */
        public CodexConversations build() {
            return new CodexConversations(this);
        }
    }

    // ------------------------------------------------------------------------------------------ chat turns

    /**
     * Starts a chat integration's turn: on the conversation's thread once its earlier turns have ended (or on a
     * thread of its own, which codex does not keep, without a conversation id), with the user messages of the
     * history codex has not seen as its input.
     *
     * @param turn the turn
     * @return a future of the started turn; it fails with what starting or resuming the thread or
     *         {@code turn/start} failed with, or with {@link IllegalArgumentException} when the history has no user
     *         message codex has not seen; the conversation's next turn runs either way
     */
    public CompletableFuture<CodexTurn> startTurn(ConversationTurn turn) {
        Objects.requireNonNull(turn, "turn");
        List<ConversationMessage> dialog = TurnInput.dialog(turn.messages());
        ThreadStartParams.Builder newThread = turn.threadParams().toBuilder();
        TurnInput.instructions(turn.messages()).ifPresent(newThread::developerInstructions);
        Optional<String> id = turn.conversationId();
        if (id.isEmpty()) {
            List<UserInput> input;
            try {
                input = TurnInput.of(dialog, TurnInput.firstUnseen(dialog, List.of()), true);
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
            return codex.startThreadAsync(newThread.ephemeral(true).build(), List.copyOf(turn.tools().get()))
                    .thenCompose(thread -> thread.startTurnAsync(params(thread, input, turn)));
        }
        Conversation conversation = conversation(id.get());
        return startTurn(id.get(), conversation, newThread.build(), turn.tools(), opened -> {
            List<UserInput> input = TurnInput.of(dialog, TurnInput.firstUnseen(dialog, conversation.seen),
                    opened.started());
            return params(opened.thread(), input, turn);
        }, started -> conversation.seen = dialog, ended -> {
            // Codex has the turn's messages in its thread once it started, however it ends; and its answer, when it
            // gave one. Recorded before the conversation's next turn reads it.
            if (ended != null && !ended.finalText().isEmpty()) {
                List<ConversationMessage> withAnswer = new ArrayList<>(dialog);
                withAnswer.add(ConversationMessage.assistant(ended.finalText()));
                conversation.seen = List.copyOf(withAnswer);
            }
        });
    }

    private static TurnStartParams params(CodexThread thread, List<UserInput> input, ConversationTurn turn) {
        TurnStartParams.Builder params = thread.turnParams().input(input);
        turn.turnParams().accept(params);
        return params.threadId(thread.id()).input(input).build();
    }

    /**
     * Runs a chat integration's turn and waits for it: at most {@code timeout} from the call for the turn to start
     * and end. Past the bound the turn is interrupted, so that the conversation's next turn does not wait for one
     * nobody reads. Must not be called on a delivery lane.
     *
     * @param turn    the turn
     * @param timeout the bound, positive
     * @return the result of a turn that completed or was interrupted
     * @throws dev.codexclient.errors.CodexTurnFailedException when the turn failed
     * @throws CodexTimeoutException    when the turn did not end in time
     * @throws CancellationException    when the calling thread was interrupted (its interrupt flag is set again and
     *                                  the turn is interrupted)
     * @throws IllegalArgumentException when the history has no user message codex has not seen
     */
    public TurnResult call(ConversationTurn turn, Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        CompletableFuture<CodexTurn> started = startTurn(turn);
        CodexTurn running;
        try {
            running = started.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            started.thenAccept(t -> t.interruptAsync());
            throw new CancellationException("interrupted while the turn was starting");
        } catch (TimeoutException e) {
            started.thenAccept(t -> t.interruptAsync());
            throw CodexTimeoutException.waitingFor("the start of a turn", timeout);
        } catch (ExecutionException e) {
            throw unwrap(e.getCause());
        }
        Duration left = Duration.ofNanos(Math.max(1, deadline - System.nanoTime()));
        try {
            return running.await(left).orThrow();
        } catch (CodexTimeoutException e) {
            running.interruptAsync();
            throw e;
        } catch (CancellationException e) {
            running.interruptAsync();
            throw e;
        }
    }

    /**
     * A chat integration's turn as a stream of its answer: text as codex writes it (a final message codex sent
     * without deltas as one piece), then {@link AnswerPart.End} with the result. Cold: each {@code subscribe} runs
     * the turn. Backpressure as for {@link CodexTurn#publisher()}: events beyond the subscriber's demand wait in the
     * turn publisher's buffer, bounded by the client's {@code publisherBufferSize} and merged under
     * {@link dev.codexclient.PublisherOverflow#COALESCE_DELTAS}. A failed turn ends the stream with its
     * {@link dev.codexclient.errors.CodexTurnFailedException}; a turn that could not start with what it failed with,
     * unwrapped; {@code cancel()} interrupts the turn.
     *
     * @param turn the turn
     * @return the answer's publisher
     */
    public Flow.Publisher<AnswerPart> stream(ConversationTurn turn) {
        Objects.requireNonNull(turn, "turn");
        return new AnswerStream(() -> startTurn(turn));
    }

    /**
     * {@return the cause a future failed with, without the wrappers of {@link CompletableFuture}} A checked cause
     * stays wrapped in a {@link CompletionException}.
     *
     * @param error what a future failed with
     */
    public static RuntimeException unwrap(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause instanceof RuntimeException r ? r : new CompletionException(cause);
    }

    /**
     * {@return the object of {@code type} an integration keeps with a conversation, made by {@code initial} the first
     * time} Let go of with the conversation ({@link #forget}, or when it is the least recently used past
     * {@link Builder#maxConversations(int)}): an integration keeps per-conversation state here rather than in a map
     * of its own that would grow without bound.
     *
     * @param <T>            the type
     * @param conversationId the conversation
     * @param type           the type, the attachment's key
     * @param initial        makes the attachment
     */
    public <T> T attachment(String conversationId, Class<T> type, Supplier<? extends T> initial) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(initial, "initial");
        Conversation c = conversation(Objects.requireNonNull(conversationId, "conversationId"));
        return type.cast(c.attachments.computeIfAbsent(type, k -> Objects.requireNonNull(initial.get(), "initial")));
    }

    /** {@return the conversations kept in memory now} At most {@link Builder#maxConversations(int)} idle ones. */
    public int size() {
        synchronized (conversations) {
            return conversations.size();
        }
    }

    // ------------------------------------------------------------------------------------------ plain turns

    /**
     * Starts a turn of a conversation once its earlier turns have ended: on the conversation's thread, which is
     * started (with {@code newThread} and {@code tools}) for a conversation without one, or resumed (with
     * {@code tools}) when it is not loaded here. The caller makes the turn's input; for a chat history, see
     * {@link #startTurn(ConversationTurn)}.
     *
     * @param conversationId the conversation
     * @param newThread      the params of the thread, when one is started; its id is then stored
     * @param tools          the thread's own tools (see {@link Codex#startThread(ThreadStartParams, List)}):
     *                       asked for only when the thread is started or resumed, which is when codex takes them;
     *                       runs on a callback thread
     * @param turn           makes the turn's params once the thread is there; runs on a callback thread
     * @return a future of the started turn; it fails with what starting or resuming the thread, {@code turn}, or
     *         {@code turn/start} failed with, and the conversation's next turn still runs
     */
    @CodexExperimental("dynamicTools")
    public CompletableFuture<CodexTurn> startTurn(String conversationId, ThreadStartParams newThread,
                                                  Supplier<List<DynamicTool>> tools,
                                                  Function<Opened, TurnStartParams> turn) {
        Objects.requireNonNull(conversationId, "conversationId");
        Objects.requireNonNull(newThread, "newThread");
        Objects.requireNonNull(tools, "tools");
        Objects.requireNonNull(turn, "turn");
        return startTurn(conversationId, conversation(conversationId), newThread, tools, turn, t -> { }, r -> { });
    }

    private CompletableFuture<CodexTurn> startTurn(String conversationId, Conversation conversation,
                                                   ThreadStartParams newThread, Supplier<List<DynamicTool>> tools,
                                                   Function<Opened, TurnStartParams> turn,
                                                   Consumer<CodexTurn> onStarted, Consumer<TurnResult> onEnded) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        CompletableFuture<Void> previous;
        synchronized (conversation) {
            previous = conversation.tail;
            conversation.tail = done;
        }
        CompletableFuture<CodexTurn> started = previous
                .thenCompose(v -> open(conversationId, conversation, newThread, tools))
                .thenCompose(opened -> opened.thread().startTurnAsync(turn.apply(opened)))
                .thenApply(t -> {
                    onStarted.accept(t);
                    return t;
                });
        started.whenComplete((t, error) -> {
            if (error != null) {
                done.complete(null);
            } else {
                t.result().whenComplete((r, e) -> {
                    try {
                        onEnded.accept(r);
                    } finally {
                        done.complete(null);
                    }
                });
            }
        });
        return started;
    }

    private CompletableFuture<Opened> open(String conversationId, Conversation conversation,
                                           ThreadStartParams newThread, Supplier<List<DynamicTool>> toolsOf) {
        CodexThread loaded = conversation.loaded;
        if (loaded != null) {
            return CompletableFuture.completedFuture(new Opened(loaded, false));
        }
        List<DynamicTool> tools = List.copyOf(toolsOf.get());
        Optional<String> stored = store.threadId(conversationId);
        CompletableFuture<Opened> opened = stored.isPresent()
                ? codex.resumeThreadAsync(ThreadResumeParams.builder().threadId(stored.get()).excludeTurns(true)
                        .build(), tools).thenApply(t -> new Opened(t, false))
                : codex.startThreadAsync(newThread, tools).thenApply(t -> {
                    store.put(conversationId, t.id());
                    return new Opened(t, true);
                });
        return opened.thenApply(o -> {
            conversation.loaded = o.thread();
            byThread.put(o.thread().id(), conversation);
            return o;
        });
    }

    /** The conversation's entry, made if needed; lets go of the least recently used idle ones past the bound. */
    private Conversation conversation(String conversationId) {
        List<Conversation> dropped = new ArrayList<>();
        Conversation c;
        synchronized (conversations) {
            c = conversations.computeIfAbsent(conversationId, k -> new Conversation());
            Iterator<Map.Entry<String, Conversation>> eldest = conversations.entrySet().iterator();
            while (conversations.size() > maxConversations && eldest.hasNext()) {
                Map.Entry<String, Conversation> e = eldest.next();
                if (e.getValue() != c && e.getValue().idle()) {
                    eldest.remove();
                    dropped.add(e.getValue());
                }
            }
        }
        dropped.forEach(this::letGo);
        return c;
    }

    private void letGo(Conversation c) {
        CodexThread loaded = c.loaded;
        if (loaded != null) {
            byThread.remove(loaded.id(), c);
        }
    }

    /**
     * {@return the id of a conversation's thread, empty for a conversation without one} Asks the store.
     *
     * @param conversationId the conversation
     */
    public Optional<String> threadId(String conversationId) {
        return store.threadId(Objects.requireNonNull(conversationId, "conversationId"));
    }

    /**
     * Forgets a conversation: removed from the store, its next turn starts a new thread. The codex thread stays
     * stored by codex.
     *
     * @param conversationId the conversation
     */
    public void forget(String conversationId) {
        Objects.requireNonNull(conversationId, "conversationId");
        Conversation c;
        synchronized (conversations) {
            c = conversations.remove(conversationId);
        }
        if (c != null) {
            letGo(c);
        }
        store.remove(conversationId);
    }

    /** Stops following the servers' notifications. The client or pool and its threads are untouched. */
    @Override
    public void close() {
        closings.close();
    }
}
