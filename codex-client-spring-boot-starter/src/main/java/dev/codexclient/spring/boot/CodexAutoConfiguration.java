package dev.codexclient.spring.boot;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.ApprovalRequest;
import dev.codexclient.CodexClient;
import dev.codexclient.DynamicTool;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.transport.Transport;
import java.util.Optional;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configures a {@link CodexClient} from the {@code codex.*} properties ({@link CodexProperties}) and the
 * application's beans. On unless {@code codex.enabled=false}; a {@code CodexClient} bean of the application's own
 * takes its place.
 *
 * <p>What the client is built from:
 * <ul>
 *   <li>the connection: a {@link Transport} bean if there is one; else {@code codex.websocket.url} or
 *       {@code codex.unix-socket.path} for an app-server that runs already; else {@code codex app-server} spawned
 *       as a child process ({@code codex.binary} or {@code codex.command}, {@code codex.home}, ...);</li>
 *   <li>an {@code ApprovalPolicy<ApprovalRequest>} bean for every approval; without one,
 *       {@code codex.approval-policy} (declining by default). An {@code ApprovalPolicy<ApprovalRequest.Command>} or
 *       {@code ApprovalPolicy<ApprovalRequest.FileChange>} bean decides that kind in its place;</li>
 *   <li>every {@link DynamicTool} bean (which turns on the experimental API, unless
 *       {@code codex.experimental-api} says otherwise);</li>
 *   <li>every {@link CodexTelemetryListener} bean, combined with {@link CodexTelemetryListener#composite} in
 *       {@link org.springframework.core.annotation.Order} order;</li>
 *   <li>every {@link CodexClientBuilderCustomizer} bean, applied last.</li>
 * </ul>
 *
 * <p><b>Start-up.</b> The client is built when the context starts, not on first use: a codex that is missing or
 * fails its handshake fails the start-up at once, with the client's message (the exit code and what codex wrote to
 * stderr, or the timeout), rather than the first request of a running application. The start is bounded by
 * {@code codex.initialize-timeout} (30 s by default) plus about a second, so a server that does not answer never
 * makes the start-up hang. An application that must start without codex sets {@code codex.lazy=true} (the client
 * connects when first asked for; its beans take an {@code ObjectProvider<CodexClient>}) or
 * {@code codex.enabled=false} (no client; the same {@code ObjectProvider} then gives none).
 *
 * <p><b>Shutdown.</b> The client is closed with the context: pending calls and running turns fail, and the server
 * gets {@code codex.close-timeout} (5 s by default) to end before it is ended by force.
 */
@AutoConfiguration
@ConditionalOnClass(CodexClient.class)
@ConditionalOnProperty(prefix = "codex", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(CodexProperties.class)
public class CodexAutoConfiguration {

    /** Created by Spring when the auto-configuration applies. */
    public CodexAutoConfiguration() {
    }

    /**
     * With {@code codex.lazy=true}, makes the auto-configured client bean lazy (an application's own
     * {@code codexClient} bean stays as the application declared it): it is built and connected when first asked for (a
     * bean that takes an {@code ObjectProvider<CodexClient>} and calls {@code getObject()}, the health check), so
     * the application starts without waiting for codex, and without failing when it is missing.
     *
     * @param environment the application's properties
     * @return the post-processor
     */
    @Bean
    static BeanFactoryPostProcessor codexLazyClient(Environment environment) {
        boolean lazy = Binder.get(environment).bind("codex.lazy", Boolean.class).orElse(false);
        return factory -> {
            // The client this auto-configuration defines, never an application's own bean of that name.
            if (lazy && factory.containsBeanDefinition("codexClient")
                    && factory.getBeanDefinition("codexClient") instanceof AnnotatedBeanDefinition definition
                    && definition.getFactoryMethodMetadata() != null
                    && CodexAutoConfiguration.class.getName().equals(
                            definition.getFactoryMethodMetadata().getDeclaringClassName())) {
                definition.setLazyInit(true);
            }
        };
    }

    /**
     * Closes the auto-configured client during the web server's graceful shutdown, after a grace period for running
     * turns, so a streaming response does not hold the shutdown until its timeout (see {@link CodexShutdown}).
     *
     * @param factory    the bean factory, to tell whether a lazy client was ever made
     * @param monitor    counts the running turns
     * @param properties the {@code codex.*} properties, for the grace period
     * @return the lifecycle
     */
    @Bean
    SmartLifecycle codexShutdown(ConfigurableListableBeanFactory factory, CodexConnectionMonitor monitor,
                                 CodexProperties properties) {
        // Only a client the monitor listens to (the auto-configured one) and that was made (a lazy one may not be).
        return new CodexShutdown(() -> monitor.attached() && factory.containsSingleton("codexClient")
                && factory.getSingleton("codexClient") instanceof CodexClient c ? c : null,
                monitor, properties.withDefaults().shutdownGracePeriod());
    }

    /**
     * Says at start-up which feature the application should have and does not (see {@link CodexFeatureReport}).
     *
     * @param factory     the bean factory, whose bean names it reads
     * @param environment the application's properties
     * @return the report
     */
    @Bean
    static SmartInitializingSingleton codexFeatureReport(ConfigurableListableBeanFactory factory,
                                                         Environment environment) {
        return CodexFeatureReport.of(factory, environment, factory.getBeanClassLoader());
    }

    /**
     * Follows the client's connection: logs a lost server at WARN and keeps what the health indicator reports. An
     * telemetry listener, so the client below registers it with the application's own listeners.
     *
     * @return the monitor
     */
    @Bean
    @ConditionalOnMissingBean
    public CodexConnectionMonitor codexConnectionMonitor() {
        return new CodexConnectionMonitor();
    }

    /**
     * The application's client, built and connected (see the class comment).
     *
     * @param properties  the {@code codex.*} properties
     * @param transport   the application's own transport, if any
     * @param approvals   the application's approval policy, if any
     * @param commands    the application's policy for command approvals, if any
     * @param fileChanges the application's policy for file-change approvals, if any
     * @param tools       the application's dynamic tools
     * @param listeners   the application's telemetry listeners
     * @param mappers     the application's Jackson 2 {@code ObjectMapper}, if it has one (Spring Boot 3's
     *                    {@code JacksonAutoConfiguration} makes it; Spring Boot 4's mapper is Jackson 3's, which the
     *                    client cannot use)
     * @param customizers the application's builder customizers
     * @return the client, closed with the context
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public CodexClient codexClient(CodexProperties properties, ObjectProvider<Transport> transport,
                                   ObjectProvider<ApprovalPolicy<ApprovalRequest>> approvals,
                                   ObjectProvider<ApprovalPolicy<ApprovalRequest.Command>> commands,
                                   ObjectProvider<ApprovalPolicy<ApprovalRequest.FileChange>> fileChanges,
                                   ObjectProvider<DynamicTool> tools, ObjectProvider<CodexTelemetryListener> listeners,
                                   ObjectProvider<ObjectMapper> mappers,
                                   ObjectProvider<CodexClientBuilderCustomizer> customizers) {
        CodexClientBuilderFactory.Approvals policies = new CodexClientBuilderFactory.Approvals(
                Optional.ofNullable(approvals.getIfAvailable()), Optional.ofNullable(commands.getIfAvailable()),
                Optional.ofNullable(fileChanges.getIfAvailable()));
        return new CodexClientBuilderFactory(properties)
                .builder(Optional.ofNullable(transport.getIfAvailable()), policies, tools.orderedStream().toList(),
                        listeners.orderedStream().toList(), Optional.ofNullable(mappers.getIfUnique()),
                        customizers.orderedStream().toList())
                .build();
    }
}
