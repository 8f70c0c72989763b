package dev.codexclient.approvals.spring;

import dev.codexclient.Subscription;
import dev.codexclient.approvals.ApprovalInbox;
import dev.codexclient.approvals.InboxEntry;
import dev.codexclient.approvals.InboxListener;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;

/**
 * The inbox's meters: {@code codex.approvals.inbox.pending} (entries waiting for a decision, in the whole store),
 * {@code codex.approvals.inbox.oldest.age} (seconds since the oldest of them was asked for; 0 when none), and the
 * timer {@code codex.approvals.inbox.time.to.end} (from request to its end, tagged {@code outcome} = decided,
 * withdrawn, expired or lost, and {@code decision}), recorded by the instance that ended the entry, so that several
 * instances sharing a store count each entry once.
 */
public final class InboxMeters implements AutoCloseable {
    private final Subscription subscription;

    /**
     * Binds the meters of {@code inbox} to {@code registry}.
     *
     * @param inbox    the inbox
     * @param registry the registry
     * @param clock    the clock of the oldest entry's age
     */
    public InboxMeters(ApprovalInbox inbox, MeterRegistry registry, Clock clock) {
        Gauge.builder("codex.approvals.inbox.pending", inbox, i -> i.pendingStats().count())
                .description("approval requests waiting for a person's decision").register(registry);
        Gauge.builder("codex.approvals.inbox.oldest.age", inbox, i -> i.pendingStats().oldest()
                        .map(t -> Math.max(0, Duration.between(t, clock.instant()).toMillis()) / 1000.0).orElse(0.0))
                .baseUnit("seconds").description("how long the oldest pending request has waited")
                .register(registry);
        subscription = inbox.subscribe(new InboxListener() {
            @Override
            public void ended(InboxEntry entry) {
                Timer.builder("codex.approvals.inbox.time.to.end")
                        .description("from codex's request to its decision, withdrawal, expiry or loss")
                        .tag("outcome", entry.state().name().toLowerCase(java.util.Locale.ROOT))
                        .tag("decision", entry.decision().map(d -> d.wireName()).orElse("none"))
                        .register(registry)
                        .record(Duration.between(entry.requestedAt(), entry.endedAt().orElse(entry.requestedAt())));
            }
        });
    }

    @Override
    public void close() {
        subscription.close();
    }
}
