package dev.codexclient.approvals.spring;

import dev.codexclient.approvals.ApprovalKind;
import dev.codexclient.approvals.InboxDecision;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code codex.approvals.inbox.*} properties.
 *
 * @param enabled         whether the inbox is the application's approval policy (true by default)
 * @param path            where the page and the API are served ({@code /codex/approvals} by default; the API
 *                        under {@code PATH/api})
 * @param role            the role a user needs to see the inbox and decide ({@code CODEX_APPROVER} by default; a
 *                        user has it as the authority {@code ROLE_CODEX_APPROVER})
 * @param store           where entries are kept: {@code jdbc} (the default: the application's {@code DataSource}
 *                        when it has one, else an embedded H2 database in {@code h2-file}) or {@code memory}
 * @param h2File          the embedded H2 database's file, without H2's {@code .mv.db}
 *                        ({@code codex-inbox/inbox} in the working directory by default)
 * @param instanceId      this instance's name in the entries; give each instance a stable one (a random one by
 *                        default), so that after a restart it resumes the threads its entries wait on
 * @param timeToLive      how long an entry waits for a decision before it expires (24 h by default)
 * @param timeToLiveByKind the time to live of one kind, e.g. {@code time-to-live-by-kind.command=1h}
 * @param expiryDecision  the decision an expired entry is answered with ({@code decline} by default)
 * @param pollInterval    how often an instance reads the changes other instances made (2 s by default; on
 *                        PostgreSQL they come at once by {@code NOTIFY}, the poll is the safety net)
 * @param notifications   whether to use {@code LISTEN/NOTIFY} on PostgreSQL (true by default)
 * @param resumeThreads   whether to resume, at start-up, the threads whose requests wait for this instance (true
 *                        by default): codex, a server of its own, then sends them again
 * @param tick            how often the inbox expires entries and writes what the store refused (1 s by default)
 */
@ConfigurationProperties("codex.approvals.inbox")
public record InboxProperties(@DefaultValue("true") boolean enabled,
                              @DefaultValue("/codex/approvals") String path,
                              @DefaultValue("CODEX_APPROVER") String role,
                              @DefaultValue("jdbc") Store store,
                              @DefaultValue("codex-inbox/inbox") Path h2File,
                              Optional<String> instanceId,
                              @DefaultValue("24h") Duration timeToLive,
                              Map<ApprovalKind, Duration> timeToLiveByKind,
                              @DefaultValue("decline") InboxDecision expiryDecision,
                              @DefaultValue("2s") Duration pollInterval,
                              @DefaultValue("true") boolean notifications,
                              @DefaultValue("true") boolean resumeThreads,
                              @DefaultValue("1s") Duration tick) {

    /**
     * Fills in what is missing.
     *
     * @param enabled          whether the inbox is on
     * @param path             where it is served
     * @param role             the role
     * @param store            the store
     * @param h2File           the H2 file
     * @param instanceId       the instance's name
     * @param timeToLive       the time to live
     * @param timeToLiveByKind the time to live by kind
     * @param expiryDecision   the default decision
     * @param pollInterval     the poll interval
     * @param notifications    whether to use NOTIFY
     * @param resumeThreads    whether to resume threads
     * @param tick             the timer's interval
     */
    public InboxProperties {
        instanceId = instanceId == null ? Optional.empty() : instanceId;
        timeToLiveByKind = timeToLiveByKind == null ? Map.of() : Map.copyOf(timeToLiveByKind);
        path = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        if (!path.startsWith("/")) {
            throw new IllegalArgumentException("codex.approvals.inbox.path must start with /: " + path);
        }
        if (role.startsWith("ROLE_")) {
            role = role.substring("ROLE_".length());
        }
    }

    /** Where the entries are kept. */
    public enum Store {
        /** A database: the application's {@code DataSource}, else an embedded H2. */
        JDBC,
        /** This process's memory: forgotten when it stops. */
        MEMORY
    }
}
