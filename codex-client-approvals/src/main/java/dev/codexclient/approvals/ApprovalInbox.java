package dev.codexclient.approvals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.ApprovalRequest;
import dev.codexclient.CodexClientBuilder;
import dev.codexclient.ServerRequestWithdrawnException;
import dev.codexclient.Subscription;
import dev.codexclient.approvals.internal.RequestFacts;
import dev.codexclient.approvals.internal.Unsaved;
import dev.codexclient.approvals.store.InboxStore;
import dev.codexclient.protocol.ProtocolJson;
import dev.codexclient.protocol.ServerNotification;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Approvals a person decides: every approval codex asks for (command, file change, permissions, and the legacy kinds
 * of older servers) becomes an entry of a store, and the client waits until a person decides it, through this
 * instance or any other that shares the store, now or after the service restarted.
 *
 * <pre>{@code
 * ApprovalInbox inbox = ApprovalInbox.builder()
 *         .store(JdbcInboxStore.builder(dataSource).build())      // PostgreSQL: one inbox for every instance
 *         .timeToLive(ApprovalKind.COMMAND, Duration.ofHours(4))
 *         .build();
 * CodexClient codex = inbox.install(CodexClient.builder()).build();
 * inbox.masking(codex::mask);                                     // secrets masked in the store, the page and the API
 * // later, from a web page or anything else:
 * inbox.decide(entryId, InboxDecision.ACCEPT, "alice");
 * }</pre>
 *
 * <p>Every entry ends, once (see {@link EntryState}): decided by a person (the first decision wins, a second one
 * is refused with who decided first and when); withdrawn when codex resolved the request itself; expired after its
 * kind's time to live, when the default decision (decline unless configured) is sent and recorded as such; lost
 * when the codex server that asked is gone. While a client holds the request, a decision made through another
 * instance reaches it through the store ({@code LISTEN/NOTIFY} on PostgreSQL, a poll otherwise). When the client
 * leaves a server of its own ({@code --listen}) the entry waits, and the request codex sends again after a resume is
 * matched to it: a decision made meanwhile is sent then.
 *
 * <p>When the store cannot be reached the inbox fails closed: nothing is decided or sent, the requests that arrive
 * are kept in memory and written when it is back ({@link #health()} says why meanwhile).
 */
public final class ApprovalInbox implements AutoCloseable {
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(ApprovalInbox.class);
    }

    /** The time to live of every kind that has none of its own. */
    public static final Duration DEFAULT_TIME_TO_LIVE = Duration.ofHours(24);
    private static final int EXPIRED_PER_TICK = 200;
    private static final int DESCRIBED_REMEMBERED = 1_000;
    private static final int TOLD_REMEMBERED = 20_000;

    private final InboxStore store;
    private final Clock clock;
    private final String instanceId;
    private final Map<ApprovalKind, Duration> timeToLive;
    private final Duration defaultTimeToLive;
    private final Map<ApprovalKind, InboxDecision> expiryDecision;
    private final ObjectMapper mapper = ProtocolJson.mapper();
    private volatile UnaryOperator<String> mask = UnaryOperator.identity();

    /** The inbox's thread: requests admitted, changes heard, the timer; one at a time, in order. */
    private final ScheduledExecutorService worker;
    private final Unsaved unsaved = new Unsaved();
    /** The requests a client of this process holds, by entry id. */
    private final Map<String, Held> held = new ConcurrentHashMap<>();
    /** What codex said of items, by thread and item, for the request about the item that comes after. */
    private final Map<String, JsonNode> described = new LinkedHashMap<>(64, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, JsonNode> eldest) {
            return size() > DESCRIBED_REMEMBERED;
        }
    };
    private final List<InboxListener> listeners = new CopyOnWriteArrayList<>();
    /** The version of each entry last told to the listeners (the worker's alone). */
    private final Map<String, Long> told = new LinkedHashMap<>(64, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > TOLD_REMEMBERED;
        }
    };
    private final AutoCloseable watch;
    private volatile InboxStore.PendingStats stats = new InboxStore.PendingStats(0, Optional.empty());
    private volatile Optional<String> storeProblem = Optional.empty();
    private volatile boolean closed;

    /** A request a client of this process holds: its facts and the stage the client waits on. */
    private record Held(RequestFacts facts, CompletableFuture<ApprovalDecision> answer) {
    }

    ApprovalInbox(ApprovalInboxBuilder b) {
        this.store = b.store;
        this.clock = b.clock;
        this.instanceId = b.instanceId;
        this.timeToLive = Map.copyOf(b.timeToLive);
        this.defaultTimeToLive = b.defaultTimeToLive;
        this.expiryDecision = Map.copyOf(b.expiryDecision);
        this.worker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "codex-inbox");
            t.setDaemon(true);
            return t;
        });
        this.watch = store.watch((id, version) -> onWorker(() -> heard(id, version)));
        if (!b.tick.isZero()) {
            worker.scheduleWithFixedDelay(this::tickSafely, b.tick.toMillis(), b.tick.toMillis(),
                    TimeUnit.MILLISECONDS);
        }
        onWorker(this::refreshStats);
    }

    /** {@return a builder of an inbox; in memory unless given a store} */
    public static ApprovalInboxBuilder builder() {
        return new ApprovalInboxBuilder();
    }

    // ------------------------------------------------------------------------------------------------ the client

    /**
     * {@return the approval policy that makes each request an entry and answers it with the decision made on it}
     * Give it to {@link CodexClientBuilder#approvals}, or let {@link #install} do it.
     */
    public ApprovalPolicy<ApprovalRequest> policy() {
        return this::admit;
    }

    /**
     * {@return the listener of the client's notifications the inbox reads: what codex says of an item (a file
     * change's paths and diffs come with its item), and the ends of turns and threads, which withdraw their
     * entries}
     */
    public Consumer<ServerNotification> notifications() {
        return this::notification;
    }

    /**
     * Makes this inbox the approval policy of {@code builder}'s client and has it read the client's notifications.
     *
     * @param builder the client's builder
     * @return the builder
     */
    public CodexClientBuilder install(CodexClientBuilder builder) {
        return builder.approvals(policy()).onNotification(notifications());
    }

    /**
     * Masks every text of a request before it is stored, shown or returned: pass {@code client::mask}, so the
     * client's secrets never reach the store, the page or the API.
     *
     * @param masking masks a text
     */
    public void masking(java.util.function.Function<? super CharSequence, String> masking) {
        Objects.requireNonNull(masking, "masking");
        this.mask = text -> masking.apply(text);
    }

    /**
     * {@return {@code text} with the client's secrets masked, as the entries are}
     *
     * @param text the text
     */
    public String mask(String text) {
        return mask.apply(text);
    }

    /**
     * {@return {@code entry} as JSON ({@link EntryJson}) with every text masked as the client masks it: what a page
     * or an API shows} The entries are masked when stored already; masking again catches a secret the client
     * learnt since (a refreshed token).
     *
     * @param entry the entry
     */
    public com.fasterxml.jackson.databind.node.ObjectNode view(InboxEntry entry) {
        return (com.fasterxml.jackson.databind.node.ObjectNode) RequestFacts.masked(EntryJson.toJson(entry), mask);
    }

    private CompletableFuture<ApprovalDecision> admit(ApprovalRequest request) {
        CompletableFuture<ApprovalDecision> answer = new CompletableFuture<>();
        RequestFacts facts = RequestFacts.of(request, mapper, mask);
        onWorker(() -> unsaved.run(() -> admit(facts, answer)));
        return answer;
    }

    /** On the worker: the entry of a request, new or (a request codex sent again) the one it had. */
    private void admit(RequestFacts facts, CompletableFuture<ApprovalDecision> answer) {
        if (answer.isDone()) {
            return;   // withdrawn before it could be stored: nothing to keep
        }
        Instant now = clock.instant();
        InboxEntry entry = null;
        while (entry == null) {
            Optional<InboxEntry> earlier = store.findByRequestKey(facts.key());
            if (earlier.isPresent() && resumable(earlier.get())) {
                InboxEntry e = earlier.get();
                InboxEntry next = e.heldBy(Optional.of(instanceId), event(now, "replayed", instanceId,
                        "codex sent the request again (the thread was resumed); this entry answers it"));
                // Changed meanwhile (a decision came): read again.
                entry = store.replace(e, next) ? next : null;
            } else {
                Optional<JsonNode> item;
                synchronized (described) {
                    item = Optional.ofNullable(described.remove(itemKey(facts.threadId(), facts.itemId())));
                }
                entry = new InboxEntry(UUID.randomUUID().toString(), facts.kind(), facts.key(), facts.threadId(),
                        facts.turnId(), facts.itemId(), facts.params(), item,
                        InboxDecision.offeredFor(facts.request()), EntryState.PENDING, now,
                        now.plus(timeToLive(facts.kind())), Optional.empty(), Optional.empty(), Optional.empty(),
                        Optional.empty(), Optional.of(instanceId), false,
                        List.of(event(now, "requested", instanceId, "codex asked: " + facts.kind().method())), 0);
                store.insert(entry);
            }
        }
        String id = entry.id();
        held.put(id, new Held(facts, answer));
        answer.whenComplete((d, e) -> {
            if (e instanceof CancellationException c) {
                onWorker(() -> unsaved.run(() -> clientLeft(id, c)));
            } else {
                held.remove(id);
            }
        });
        if (entry.state() == EntryState.DECIDED || entry.state() == EntryState.EXPIRED) {
            deliver(entry);
        }
    }

    /** Whether a request codex sent again is answered by {@code entry}: one no decision reached codex for yet. */
    private static boolean resumable(InboxEntry entry) {
        return entry.state() == EntryState.PENDING
                || (entry.state() == EntryState.DECIDED || entry.state() == EntryState.EXPIRED);
    }

    /** On the worker: the client stopped waiting for the request of entry {@code id}, for the reason it gives. */
    private void clientLeft(String id, CancellationException why) {
        Held h = held.remove(id);
        if (h == null) {
            return;
        }
        ServerRequestWithdrawnException.Reason reason = why instanceof ServerRequestWithdrawnException w
                ? w.reason() : ServerRequestWithdrawnException.Reason.DISCONNECTED;
        Instant now = clock.instant();
        update(id, e -> {
            if (e.state() == EntryState.PENDING) {
                return switch (reason) {
                    case RESOLVED -> Optional.of(e.ended(EntryState.WITHDRAWN, Optional.empty(), instanceId, now,
                            "codex resolved the request itself", event(now, "withdrawn", null,
                                    "codex resolved the request itself (serverRequest/resolved): its turn was "
                                            + "interrupted or ended, or it was answered elsewhere")));
                    case GONE -> Optional.of(e.ended(EntryState.LOST, Optional.empty(), instanceId, now,
                            "the codex server that asked is gone", event(now, "lost", instanceId,
                                    "the codex server that asked is gone: resume thread " + e.threadId()
                                            + " and run the turn again")));
                    case DISCONNECTED -> Optional.of(released(e, now));
                };
            }
            if (!e.sent() && e.holder().isPresent()) {
                // Decided, not sent yet: it goes out when codex asks again, or not at all.
                return Optional.of(reason == ServerRequestWithdrawnException.Reason.DISCONNECTED ? released(e, now)
                        : e.heldBy(Optional.empty(), event(now, "unsent", instanceId,
                                "the decision was not sent: " + why.getMessage())));
            }
            return Optional.empty();
        }, true);
    }

    private InboxEntry released(InboxEntry e, Instant now) {
        return e.heldBy(Optional.empty(), event(now, "released", instanceId,
                "the client left codex, which keeps the request and sends it again to the client that resumes "
                        + "thread " + e.threadId()));
    }

    /** On the worker: sends the decision of {@code entry} to the client that holds its request, here. */
    private void deliver(InboxEntry entry) {
        Held h = held.get(entry.id());
        if (h == null || entry.decision().isEmpty() || h.answer().isDone()) {
            return;
        }
        ApprovalDecision decision = entry.decision().get().toApprovalDecision(h.facts().request());
        if (h.answer().complete(decision)) {
            Instant now = clock.instant();
            unsaved.run(() -> update(entry.id(), e -> e.sent() ? Optional.empty()
                    : Optional.of(e.markedSent(event(now, "sent", instanceId,
                    "sent to codex: " + entry.decision().get().wireName()))), false));
        }
    }

    private void notification(ServerNotification n) {
        if (n instanceof ServerNotification.ItemStarted started) {
            JsonNode item = mapper.valueToTree(started.params().item());
            JsonNode type = item.get("type");
            JsonNode itemId = item.get("id");
            if (type != null && "fileChange".equals(type.asText()) && itemId != null) {
                String key = itemKey(started.params().threadId(), Optional.of(itemId.asText()));
                JsonNode masked = RequestFacts.masked(item, mask);
                onWorker(() -> describe(key, masked));
            }
        } else if (n instanceof ServerNotification.TurnCompleted completed) {
            String thread = completed.params().threadId();
            String turn = completed.params().turn() == null ? null : completed.params().turn().id();
            onWorker(() -> turnEnded(thread, turn));
        }
    }

    /** On the worker: what codex said of an item, kept for its request, or given to its entry. */
    private void describe(String key, JsonNode item) {
        for (Held h : held.values()) {
            if (itemKey(h.facts().threadId(), h.facts().itemId()).equals(key)) {
                Instant now = clock.instant();
                String id = entryIdOf(h);
                if (id != null) {
                    unsaved.run(() -> update(id, e -> e.item().isPresent() ? Optional.empty()
                            : Optional.of(e.described(item, event(now, "described", null,
                            "codex described the item"))), false));
                }
                return;
            }
        }
        synchronized (described) {
            described.put(key, item);
        }
    }

    /** On the worker: a turn ended; its entries still pending cannot be answered any more. */
    private void turnEnded(String threadId, String turnId) {
        Instant now = clock.instant();
        for (Map.Entry<String, Held> h : held.entrySet()) {
            RequestFacts f = h.getValue().facts();
            if (f.threadId().equals(threadId) && (turnId == null || f.turnId().map(turnId::equals).orElse(true))) {
                unsaved.run(() -> update(h.getKey(), e -> e.state() != EntryState.PENDING ? Optional.empty()
                        : Optional.of(e.ended(EntryState.WITHDRAWN, Optional.empty(), instanceId, now,
                        "its turn ended", event(now, "withdrawn", null, "turn " + turnId + " ended"))), true));
            }
        }
    }

    private String entryIdOf(Held target) {
        for (Map.Entry<String, Held> e : held.entrySet()) {
            if (e.getValue() == target) {
                return e.getKey();
            }
        }
        return null;
    }

    private static String itemKey(String threadId, Optional<String> itemId) {
        return threadId + "|" + itemId.orElse("");
    }

    // ------------------------------------------------------------------------------------------------ people

    /**
     * {@return the entry with {@code id}}
     *
     * @param id the entry's id
     * @throws InboxStoreException when the store cannot be reached
     */
    public Optional<InboxEntry> entry(String id) {
        return store.find(id);
    }

    /**
     * {@return one page of the entries that pass {@code query}}
     *
     * @param query the filters and the page
     * @throws InboxStoreException when the store cannot be reached
     */
    public InboxPage list(InboxQuery query) {
        return store.list(query);
    }

    /**
     * Records {@code decider}'s decision on entry {@code id}, which the client that holds the request sends to codex
     * (through the store when it is another instance's). The first decision wins: a decision on an entry that has
     * ended is refused ({@link DecideResult.AlreadyEnded}, which says who ended it and when), and so is one the
     * request does not offer.
     *
     * @param id       the entry
     * @param decision the decision
     * @param decider  who decides: the authenticated user, never a name from the request
     * @return what came of it
     * @throws InboxStoreException when the store cannot be reached: nothing was recorded
     */
    public DecideResult decide(String id, InboxDecision decision, String decider) {
        Objects.requireNonNull(decision, "decision");
        Objects.requireNonNull(decider, "decider");
        while (true) {
            Optional<InboxEntry> found = store.find(id);
            if (found.isEmpty()) {
                return new DecideResult.Unknown(id);
            }
            InboxEntry e = found.get();
            Instant now = clock.instant();
            if (e.state().ended()) {
                InboxEntry noted = e.noted(event(now, "refused", decider, "a decision (" + decision.wireName()
                        + ") came after the entry ended: " + e.state().name().toLowerCase(java.util.Locale.ROOT)
                        + e.decidedBy().map(b -> " by " + b).orElse("")));
                // The refusal is written down when it can be; it changes nothing else.
                return new DecideResult.AlreadyEnded(store.replace(e, noted) ? noted : e);
            }
            if (!e.offered().contains(decision)) {
                return new DecideResult.NotOffered(e, e.offered());
            }
            InboxEntry next = e.ended(EntryState.DECIDED, Optional.of(decision), decider, now,
                    "decided by " + decider, event(now, "decided", decider, decision.wireName()));
            if (store.replace(e, next)) {
                tellEnded(next);
                if (held.containsKey(id)) {
                    onWorker(() -> deliver(next));
                }
                return new DecideResult.Decided(next);
            }
        }
    }

    /**
     * Tells {@code listener} of every change from now on (see {@link InboxListener}).
     *
     * @param listener the listener
     * @return removes it
     */
    public Subscription subscribe(InboxListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
        return () -> listeners.remove(listener);
    }

    /** {@return whether the inbox can record decisions now, and why not} */
    public InboxHealth health() {
        Optional<String> problem = storeProblem.or(unsaved::problem);
        return new InboxHealth(problem.isEmpty(), problem, unsaved.size(), stats.count());
    }

    /** {@return how many entries are pending and when the oldest was asked for, as of the last tick} */
    public InboxStore.PendingStats pendingStats() {
        return stats;
    }

    /**
     * {@return the threads whose requests wait for this instance's client to resume them} After a restart of the
     * service whose codex runs as a server of its own, resuming them has codex send their requests again, and the
     * entries answer them (with the decision made meanwhile, if any).
     *
     * @throws InboxStoreException when the store cannot be reached
     */
    public List<String> threadsToResume() {
        Set<String> threads = new LinkedHashSet<>();
        for (int page = 0; ; page++) {
            InboxPage p = store.list(InboxQuery.all().page(page, InboxQuery.MAX_SIZE));
            for (InboxEntry e : p.entries()) {
                boolean waiting = e.state() == EntryState.PENDING
                        || (e.state() == EntryState.DECIDED || e.state() == EntryState.EXPIRED) && !e.sent();
                if (waiting && e.holder().isEmpty() && lastHolderWasMe(e)) {
                    threads.add(e.threadId());
                }
            }
            if ((long) (page + 1) * p.size() >= p.total()) {
                return new ArrayList<>(threads);
            }
        }
    }

    private boolean lastHolderWasMe(InboxEntry e) {
        for (int i = e.history().size() - 1; i >= 0; i--) {
            EntryEvent ev = e.history().get(i);
            if (ev.what().equals("released") || ev.what().equals("requested") || ev.what().equals("replayed")) {
                return ev.by().map(instanceId::equals).orElse(false);
            }
        }
        return false;
    }

    /** {@return this instance's name, as the entries' history and holders write it} */
    public String instanceId() {
        return instanceId;
    }

    // ------------------------------------------------------------------------------------------------ the timer

    /**
     * What the inbox's timer does (every {@link ApprovalInboxBuilder#tick} interval): writes what the store refused,
     * expires the entries past their time to live, and counts the pending ones. Waits for it to be done. Tests with a clock of
     * their own call it after moving the clock.
     */
    public void tick() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        worker.execute(() -> {
            try {
                tickNow();
                done.complete(null);
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
            }
        });
        done.join();
    }

    private void tickSafely() {
        try {
            tickNow();
        } catch (RuntimeException e) {
            Log.LOG.warn("the inbox's timer failed", e);
        }
    }

    private void tickNow() {
        unsaved.flush();
        try {
            store.ping();
            Instant now = clock.instant();
            for (InboxEntry due : store.expiring(now, EXPIRED_PER_TICK)) {
                expire(due, now);
            }
            refreshStats();
        } catch (InboxStoreException e) {
            storeProblem = Optional.of(e.getMessage());
        }
    }

    private void expire(InboxEntry due, Instant now) {
        InboxDecision d = expiryDecision.getOrDefault(due.kind(), InboxDecision.DECLINE);
        InboxDecision sent = due.offered().contains(d) ? d : InboxDecision.DECLINE;
        Duration ttl = Duration.between(due.requestedAt(), due.expiresAt());
        InboxEntry next = due.ended(EntryState.EXPIRED, Optional.of(sent), instanceId, now,
                "no decision within " + ttl + ": the default decision, " + sent.wireName() + ", is sent",
                event(now, "expired", instanceId, "no decision within " + ttl + "; the default decision is "
                        + sent.wireName()));
        if (store.replace(due, next)) {
            tellEnded(next);
            deliver(next);
        }
    }

    private void refreshStats() {
        try {
            stats = store.pendingStats();
            storeProblem = Optional.empty();
        } catch (InboxStoreException e) {
            storeProblem = Optional.of(e.getMessage());
        }
    }

    // ------------------------------------------------------------------------------------------------ changes

    /** On the worker: a change heard from the store, made here or by another instance. */
    private void heard(String id, long version) {
        if (closed || (listeners.isEmpty() && !held.containsKey(id))) {
            return;
        }
        Optional<InboxEntry> entry;
        try {
            entry = store.find(id);
        } catch (InboxStoreException e) {
            storeProblem = Optional.of(e.getMessage());
            return;   // the poll finds it again when the store is back
        }
        entry.ifPresent(e -> {
            if (e.state() == EntryState.DECIDED || e.state() == EntryState.EXPIRED) {
                deliver(e);
            }
            // The entry is read as it is now, which may be a later version than the change heard: each version is
            // told once, and one that was overtaken is not told at all.
            Long before = told.get(e.id());
            if (before != null && before >= e.version()) {
                return;
            }
            told.put(e.id(), e.version());
            for (InboxListener l : listeners) {
                try {
                    l.changed(e);
                } catch (RuntimeException ex) {
                    Log.LOG.warn("an inbox listener failed", ex);
                }
            }
        });
    }

    private void tellEnded(InboxEntry entry) {
        for (InboxListener l : listeners) {
            try {
                l.ended(entry);
            } catch (RuntimeException ex) {
                Log.LOG.warn("an inbox listener failed", ex);
            }
        }
    }

    /**
     * Replaces entry {@code id} by what {@code change} makes of it, read again while another writer changes it
     * first; nothing when {@code change} gives nothing.
     */
    private void update(String id, java.util.function.Function<InboxEntry, Optional<InboxEntry>> change,
                        boolean ends) {
        while (true) {
            Optional<InboxEntry> found = store.find(id);
            if (found.isEmpty()) {
                return;
            }
            Optional<InboxEntry> next = change.apply(found.get());
            if (next.isEmpty()) {
                return;
            }
            if (store.replace(found.get(), next.get())) {
                if (ends && next.get().state().ended() && !found.get().state().ended()) {
                    tellEnded(next.get());
                }
                return;
            }
        }
    }

    private Duration timeToLive(ApprovalKind kind) {
        return timeToLive.getOrDefault(kind, defaultTimeToLive);
    }

    private static EntryEvent event(Instant at, String what, String by, String detail) {
        return new EntryEvent(at, what, Optional.ofNullable(by), detail);
    }

    private void onWorker(Runnable task) {
        if (closed) {
            return;
        }
        try {
            worker.execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    Log.LOG.warn("the inbox failed a task", e);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            Log.LOG.debug("the inbox is closed; dropped a task");
        }
    }

    /**
     * Stops the timer and the watch, and closes the store. The entries of requests a client still holds stay as
     * they are (the client's close tells the inbox what became of them first, when it closes before the inbox).
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        // What the clients told before this close is written first.
        CompletableFuture<Void> drained = new CompletableFuture<>();
        try {
            worker.execute(() -> drained.complete(null));
            drained.get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            Log.LOG.debug("closing the inbox without waiting for its last writes: {}", e.toString());
        }
        closed = true;
        try {
            watch.close();
        } catch (Exception e) {
            Log.LOG.debug("stopping the inbox's watch failed: {}", e.toString());
        }
        worker.shutdownNow();
        store.close();
    }
}
