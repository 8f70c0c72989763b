package dev.codexclient.approvals;

import dev.codexclient.approvals.store.InMemoryInboxStore;
import dev.codexclient.approvals.store.InboxStore;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/** Builds an {@link ApprovalInbox}: {@link ApprovalInbox#builder()}. */
public final class ApprovalInboxBuilder {
    InboxStore store;
    Clock clock = Clock.systemUTC();
    String instanceId = UUID.randomUUID().toString().substring(0, 8);
    final Map<ApprovalKind, Duration> timeToLive = new EnumMap<>(ApprovalKind.class);
    final Map<ApprovalKind, InboxDecision> expiryDecision = new EnumMap<>(ApprovalKind.class);
    Duration tick = Duration.ofSeconds(1);
    Duration defaultTimeToLive = ApprovalInbox.DEFAULT_TIME_TO_LIVE;

    ApprovalInboxBuilder() {
    }

    /**
     * Where the entries are kept (in memory by default: {@link InMemoryInboxStore}). The inbox closes it.
     *
     * @param store the store
     * @return this builder
     */
    public ApprovalInboxBuilder store(InboxStore store) {
        this.store = Objects.requireNonNull(store, "store");
        return this;
    }

    /**
     * The clock of the entries' times and their expiry (the system's by default).
     *
     * @param clock the clock
     * @return this builder
     */
    public ApprovalInboxBuilder clock(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        return this;
    }

    /**
     * This instance's name in the entries (a random one by default). Give each instance a stable name of its
     * own: after a restart, {@link ApprovalInbox#threadsToResume()} finds the threads this instance's client held by it.
     *
     * @param id the name
     * @return this builder
     */
    public ApprovalInboxBuilder instanceId(String id) {
        if (id == null || id.isBlank()) {
            throw new IllegalArgumentException("an instance needs a name");
        }
        this.instanceId = id;
        return this;
    }

    /**
     * How long an entry of {@code kind} waits for a decision before it expires ({@link ApprovalInbox#DEFAULT_TIME_TO_LIVE}
     * unless said).
     *
     * @param kind the kind
     * @param ttl  the time to live, positive
     * @return this builder
     */
    public ApprovalInboxBuilder timeToLive(ApprovalKind kind, Duration ttl) {
        if (ttl.isZero() || ttl.isNegative()) {
            throw new IllegalArgumentException("a time to live must be positive");
        }
        timeToLive.put(Objects.requireNonNull(kind, "kind"), ttl);
        return this;
    }

    /**
     * How long entries of every kind without a time to live of its own wait ({@link ApprovalInbox#DEFAULT_TIME_TO_LIVE}
     * unless said).
     *
     * @param ttl the time to live, positive
     * @return this builder
     */
    public ApprovalInboxBuilder timeToLive(Duration ttl) {
        if (ttl.isZero() || ttl.isNegative()) {
            throw new IllegalArgumentException("a time to live must be positive");
        }
        this.defaultTimeToLive = ttl;
        return this;
    }

    /**
     * The decision an expired entry of {@code kind} is answered with: decline unless said. A decision the entry
     * does not offer becomes decline.
     *
     * @param kind     the kind
     * @param decision the default decision
     * @return this builder
     */
    public ApprovalInboxBuilder expiryDecision(ApprovalKind kind, InboxDecision decision) {
        expiryDecision.put(Objects.requireNonNull(kind, "kind"), Objects.requireNonNull(decision, "decision"));
        return this;
    }

    /**
     * How often the timer writes what the store refused, expires entries and counts the pending ones (1 s by
     * default); zero: no timer, {@link ApprovalInbox#tick()} is called by hand (tests with a clock of their own).
     *
     * @param interval the interval, zero or positive
     * @return this builder
     */
    public ApprovalInboxBuilder tick(Duration interval) {
        if (interval.isNegative()) {
            throw new IllegalArgumentException("the tick must not be negative");
        }
        this.tick = interval;
        return this;
    }

    /** {@return the inbox} */
    public ApprovalInbox build() {
        if (store == null) {
            store = new InMemoryInboxStore();
        }
        return new ApprovalInbox(this);
    }
}
