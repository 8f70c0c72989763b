package dev.codexclient.spring.boot;

import dev.codexclient.CodexClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Says at start-up, at WARN, which of the starter's features the application should have and does not: the
 * {@code codex} health indicator where Actuator is present, the Micrometer listener where there is an
 * {@code ObservationRegistry} and {@code codex-client-micrometer}. A feature that does not activate must never go
 * unnoticed until production: Spring Boot 4.0 moved the health types and the registries' configurations, and a
 * starter built for 3.x lost both there without a word. It reads bean names only, so it makes no bean (a lazy client
 * stays unmade), and it runs once the context's singletons are made.
 */
final class CodexFeatureReport implements SmartInitializingSingleton {
    private static final Logger LOG = LoggerFactory.getLogger(CodexFeatureReport.class);

    /** In spring-boot-actuator on both lines: Actuator is there. */
    static final String ACTUATOR = "org.springframework.boot.actuate.endpoint.annotation.Endpoint";
    static final String HEALTH_3 = "org.springframework.boot.actuate.health.HealthIndicator";
    static final String HEALTH_4 = "org.springframework.boot.health.contributor.HealthIndicator";
    static final String OBSERVATION_REGISTRY = "io.micrometer.observation.ObservationRegistry";
    static final String MICROMETER_LISTENER = "dev.codexclient.micrometer.MicrometerTelemetryListener";

    private final ListableBeanFactory beans;
    private final Environment environment;
    private final ClassLoader classLoader;
    private final String bootVersion;

    CodexFeatureReport(ListableBeanFactory beans, Environment environment, ClassLoader classLoader,
                       String bootVersion) {
        this.beans = beans;
        this.environment = environment;
        this.classLoader = classLoader;
        this.bootVersion = bootVersion;
    }

    /** The report of this application's context, on the Spring Boot it runs on. */
    static CodexFeatureReport of(ListableBeanFactory beans, Environment environment, ClassLoader classLoader) {
        // Null when Spring Boot's jar has no manifest (run from an IDE's classes): nothing to say then.
        String version = SpringBootVersion.getVersion();
        return new CodexFeatureReport(beans, environment, classLoader, version != null ? version : "4");
    }

    @Override
    public void afterSingletonsInstantiated() {
        missing().forEach(line -> LOG.warn("codex: {}", line));
    }

    /** What is missing, one sentence each; empty when every feature the application should have is there. */
    List<String> missing() {
        List<String> missing = new ArrayList<>();
        if (!supported(bootVersion)) {
            missing.add("this starter is built and tested for Spring Boot 3.5 and 4.0, and this is Spring Boot "
                    + bootVersion + "; check below that health and metrics are configured");
        }
        if (beans.getBeanNamesForType(CodexClient.class, true, false).length == 0) {
            return missing;
        }
        health().ifPresent(missing::add);
        metrics().ifPresent(missing::add);
        return missing;
    }

    private Optional<String> health() {
        boolean actuator = present(ACTUATOR) || present(HEALTH_3) || present(HEALTH_4);
        if (!actuator || beans.containsBean(CodexHealthContributorAutoConfiguration.BEAN_NAME)
                || !flag("management.health.codex.enabled", flag("management.health.defaults.enabled", true))) {
            return Optional.empty();
        }
        if (!present(HEALTH_3) && !present(HEALTH_4)) {
            return Optional.of("Actuator is present but neither Spring Boot 3's health types ("
                    + HEALTH_3 + ") nor 4's (" + HEALTH_4 + "), so there is no codex health indicator: "
                    + "/actuator/health has no codex component (Spring Boot " + bootVersion + ")");
        }
        return Optional.of("Actuator's health is present but the codex health indicator was not "
                + "configured, so /actuator/health has no codex component (Spring Boot " + bootVersion + "); "
                + "management.health.codex.enabled=false switches it off knowingly");
    }

    private Optional<String> metrics() {
        if (!present(OBSERVATION_REGISTRY) || !flag("codex.enabled", true)) {
            return Optional.empty();
        }
        Class<?> registry = ClassUtils.resolveClassName(OBSERVATION_REGISTRY, classLoader);
        if (beans.getBeanNamesForType(registry, true, false).length == 0) {
            return Optional.empty();
        }
        if (!present(MICROMETER_LISTENER)) {
            // A choice, not a failure: said once, at INFO, with what to add.
            LOG.info("codex: the application observes with Micrometer, but codex-client-micrometer is not on the "
                    + "class path: add it for the gen_ai.* and codex.client.* meters and spans");
            return Optional.empty();
        }
        Class<?> listener = ClassUtils.resolveClassName(MICROMETER_LISTENER, classLoader);
        if (beans.getBeanNamesForType(listener, true, false).length > 0) {
            return Optional.empty();
        }
        return Optional.of("the application has an ObservationRegistry and codex-client-micrometer, but no "
                + "MicrometerTelemetryListener was configured, so the client's requests and turns are not observed and "
                + "there are no gen_ai.* meters (Spring Boot " + bootVersion + ")");
    }

    private boolean present(String className) {
        return ClassUtils.isPresent(className, classLoader);
    }

    private boolean flag(String property, boolean otherwise) {
        return Binder.get(environment).bind(property, Boolean.class).orElse(otherwise);
    }

    /** 3.5 and newer 3.x, and 4.x: the lines the starter is built against. */
    static boolean supported(String version) {
        String[] parts = version.split("\\.");
        try {
            int major = Integer.parseInt(parts[0]);
            int minor = parts.length > 1 ? Integer.parseInt(parts[1].replaceAll("\\D.*", "")) : 0;
            return major == 4 || (major == 3 && minor >= 5);
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
