package dev.codexclient;

import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadResumeParams;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.protocol.TurnStartParams;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Conversations kept on codex threads: each conversation id (a chat session, a user, a ticket) maps to one codex
 * thread, which holds the conversation's history, so an application keeps nothing but that mapping. The first turn
 * of a conversation starts its thread, with the conversation's own tools; a later turn finds the thread loaded, or
 * resumes it (after the server unloaded it, or in another process when the {@link Store} outlives this one). Turns
 * of one conversation run one after another, in the order they were asked for; different conversations run at once.
 * Chat integrations (Spring AI, LangChain4j) build on it; applications can too.
 *
 * <pre>{@code
 * CodexConversations conversations = CodexConversations.builder(codex).build();
 * CodexTurn turn = conversations.startTurn("user-42", ThreadStartParams.builder().build(), List::of,
 *         opened -> opened.thread().turnParams().input(Inputs.text("What did I ask before?")).build()).join();
 * }</pre>
 *
 * <p>Threading: every method may be called from any thread; {@link #startTurn} never blocks. The mapping is written
 * to the store when a thread starts, from a dependent of the {@code thread/start} call. A small entry per conversation
 * seen (the tail of its turns, its loaded thread) stays in memory until {@link #forget}.
 */
public final class CodexConversations implements AutoCloseable {
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

    /** One conversation: the tail of its turns and the thread loaded for it. */
    private static final class Conversation {
        private CompletableFuture<Void> tail = CompletableFuture.completedFuture(null);
        private volatile CodexThread loaded;
    }

    private final Codex codex;
    private final Store store;
    private final Map<String, Conversation> conversations = new ConcurrentHashMap<>();
    /** The conversations by the thread loaded for them, to let go of a thread the server closes. */
    private final Map<String, Conversation> byThread = new ConcurrentHashMap<>();
    private final Subscription closings;

    private CodexConversations(Codex codex, Store store) {
        this.codex = codex;
        this.store = store;
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

        /** {@return the conversations} */
        public CodexConversations build() {
            return new CodexConversations(codex, store);
        }
    }

    /**
     * Starts a turn of a conversation once its earlier turns have ended: on the conversation's thread, which is
     * started (with {@code newThread} and {@code tools}) for a conversation without one, or resumed (with
     * {@code tools}) when it is not loaded here.
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
        Conversation conversation = conversations.computeIfAbsent(conversationId, id -> new Conversation());
        CompletableFuture<Void> done = new CompletableFuture<>();
        CompletableFuture<Void> previous;
        synchronized (conversation) {
            previous = conversation.tail;
            conversation.tail = done;
        }
        CompletableFuture<CodexTurn> started = previous
                .thenCompose(v -> open(conversationId, conversation, newThread, tools))
                .thenCompose(opened -> opened.thread().startTurnAsync(turn.apply(opened)));
        started.whenComplete((t, error) -> {
            if (error != null) {
                done.complete(null);
            } else {
                t.result().whenComplete((r, e) -> done.complete(null));
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
        Conversation c = conversations.remove(conversationId);
        CodexThread loaded = c == null ? null : c.loaded;
        if (loaded != null) {
            byThread.remove(loaded.id(), c);
        }
        store.remove(conversationId);
    }

    /** Stops following the servers' notifications. The client or pool and its threads are untouched. */
    @Override
    public void close() {
        closings.close();
    }
}
