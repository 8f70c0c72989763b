package dev.codexclient.approvals.spring;

import dev.codexclient.ApprovalPolicy;
import dev.codexclient.ApprovalRequest;
import dev.codexclient.Codex;
import dev.codexclient.CodexClient;
import dev.codexclient.approvals.ApprovalInbox;
import dev.codexclient.approvals.ApprovalInboxBuilder;
import dev.codexclient.approvals.ApprovalKind;
import dev.codexclient.approvals.store.InMemoryInboxStore;
import dev.codexclient.approvals.store.InboxStore;
import dev.codexclient.approvals.store.JdbcInboxStore;
import dev.codexclient.spring.boot.CodexAutoConfiguration;
import dev.codexclient.spring.boot.CodexClientBuilderCustomizer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The approvals inbox as the application's approval policy: every approval codex asks for waits for a person, who
 * decides on the page or through the API ({@link InboxWebAutoConfiguration}). On unless
 * {@code codex.approvals.inbox.enabled=false}; an {@link ApprovalInbox} bean of the application's own takes its
 * place, and an {@code ApprovalPolicy} bean of its own decides instead of the inbox.
 *
 * <p>The store: the application's {@code DataSource} (PostgreSQL for several instances that share one inbox), else
 * an embedded H2 database in {@code codex.approvals.inbox.h2-file}; or memory ({@code store=memory}). Its tables are
 * created and migrated by Flyway, with a history table of their own, beside the application's.
 */
@AutoConfiguration(before = CodexAutoConfiguration.class,
        afterName = {"org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
                "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"})
@ConditionalOnClass({ApprovalInbox.class, CodexClient.class})
@ConditionalOnProperty(prefix = "codex.approvals.inbox", name = "enabled", havingValue = "true",
        matchIfMissing = true)
@EnableConfigurationProperties(InboxProperties.class)
public class InboxAutoConfiguration {
    private static final Logger LOG = LoggerFactory.getLogger(InboxAutoConfiguration.class);

    /** Created by Spring when the auto-configuration applies. */
    public InboxAutoConfiguration() {
    }

    /**
     * The inbox, on the store the properties name.
     *
     * @param properties the {@code codex.approvals.inbox.*} properties
     * @param dataSource the application's database, if any
     * @return the inbox, closed with the context
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public ApprovalInbox approvalInbox(InboxProperties properties, ObjectProvider<DataSource> dataSource) {
        ApprovalInboxBuilder b = ApprovalInbox.builder().store(store(properties, dataSource))
                .timeToLive(properties.timeToLive()).tick(properties.tick());
        properties.instanceId().ifPresent(b::instanceId);
        for (Map.Entry<ApprovalKind, java.time.Duration> ttl : properties.timeToLiveByKind().entrySet()) {
            b.timeToLive(ttl.getKey(), ttl.getValue());
        }
        for (ApprovalKind kind : ApprovalKind.values()) {
            b.expiryDecision(kind, properties.expiryDecision());
        }
        return b.build();
    }

    private static InboxStore store(InboxProperties properties, ObjectProvider<DataSource> dataSource) {
        if (properties.store() == InboxProperties.Store.MEMORY) {
            return new InMemoryInboxStore();
        }
        DataSource ds = dataSource.getIfUnique();
        if (ds != null) {
            return JdbcInboxStore.builder(ds).pollInterval(properties.pollInterval())
                    .notifications(properties.notifications()).build();
        }
        Path file = properties.h2File().toAbsolutePath();
        try {
            Files.createDirectories(file.getParent());
        } catch (java.io.IOException e) {
            throw new IllegalStateException("cannot create the inbox's directory " + file.getParent(), e);
        }
        LOG.info("The approvals inbox keeps its entries in the embedded H2 database {}.mv.db", file);
        return JdbcInboxStore.h2(file);
    }

    /**
     * The inbox as the client's approval policy, for every kind.
     *
     * @param inbox the inbox
     * @return its policy
     */
    @Bean
    @ConditionalOnMissingBean(ApprovalPolicy.class)
    public ApprovalPolicy<ApprovalRequest> codexInboxApprovalPolicy(ApprovalInbox inbox) {
        return inbox.policy();
    }

    /**
     * Has the inbox read the client's notifications (a file change's paths and diffs, the ends of turns).
     *
     * @param inbox the inbox
     * @return the customizer
     */
    @Bean
    public CodexClientBuilderCustomizer codexInboxNotifications(ApprovalInbox inbox) {
        return builder -> builder.onNotification(inbox.notifications());
    }

    /**
     * Once the client is up: masks the entries with the client's secrets, and resumes the threads whose requests
     * wait for this instance ({@code codex.approvals.inbox.resume-threads}).
     *
     * @param inbox      the inbox
     * @param client     the application's {@link Codex}: the starter's client, or a pool of the application's, if
     *                   there is exactly one
     * @param properties the properties
     * @return the step
     */
    @Bean
    public SmartInitializingSingleton codexInboxClientBinding(ApprovalInbox inbox, ObjectProvider<Codex> client,
                                                              InboxProperties properties) {
        return () -> {
            Codex c = client.getIfUnique();
            if (c == null) {
                return;
            }
            inbox.masking(c::mask);
            if (properties.resumeThreads()) {
                for (String thread : inbox.threadsToResume()) {
                    try {
                        c.resumeThreadWithoutTurns(thread);
                        LOG.info("Resumed thread {}: codex sends its pending approvals again", thread);
                    } catch (RuntimeException e) {
                        LOG.warn("Could not resume thread {} whose approvals wait in the inbox: {}", thread,
                                e.getMessage());
                    }
                }
            }
        };
    }
}
