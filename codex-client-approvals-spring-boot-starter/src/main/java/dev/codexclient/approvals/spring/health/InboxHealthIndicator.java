package dev.codexclient.approvals.spring.health;

import dev.codexclient.approvals.ApprovalInbox;
import dev.codexclient.approvals.InboxHealth;
import java.util.Objects;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code codexApprovalsInbox} health indicator on Spring Boot 4.0 ({@code spring-boot-health}): down while the
 * inbox's store cannot be reached, with why, and how many requests and changes wait for it. On Spring Boot 3.5 its
 * place is taken by {@link dev.codexclient.approvals.spring.actuate.InboxHealthIndicator}.
 */
public final class InboxHealthIndicator implements HealthIndicator {
    private final ApprovalInbox inbox;

    /**
     * The indicator of {@code inbox}.
     *
     * @param inbox the inbox
     */
    public InboxHealthIndicator(ApprovalInbox inbox) {
        this.inbox = Objects.requireNonNull(inbox, "inbox");
    }

    @Override
    public Health health() {
        InboxHealth h = inbox.health();
        Health.Builder b = h.up() ? Health.up() : Health.down();
        b.withDetail("pending", h.pending()).withDetail("unsaved", h.unsaved());
        h.problem().ifPresent(p -> b.withDetail("problem", inbox.mask(p)));
        return b.build();
    }
}
