package dev.codexclient.spring.boot;

import java.util.Map;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/**
 * Spring Boot 3's health types ({@code org.springframework.boot.actuate.health}), for the tests that read health the same way on
 * both lines: the one thing about health they spell differently.
 */
final class ActuatorHealth {
    /** The line's Actuator interface; hiding it hides health. */
    static final Class<?> HEALTH_INDICATOR = HealthIndicator.class;
    /** The starter's indicator on this line. */
    static final Class<?> CODEX_INDICATOR = dev.codexclient.spring.boot.actuate.CodexHealthIndicator.class;

    private ActuatorHealth() {
    }

    /**
     * What an indicator reported.
     *
     * @param status  the status's code: UP, DOWN, UNKNOWN
     * @param details the details
     */
    record Report(String status, Map<String, Object> details) {
    }

    /** What the context's {@code codex} indicator reports now. */
    static Report codex(ApplicationContext context) {
        Health health = context.getBean("codexHealthIndicator", HealthIndicator.class).health();
        return new Report(health.getStatus().getCode(), health.getDetails());
    }

    /** The runner with an indicator of the application's own under the starter's name, reporting UNKNOWN. */
    static ApplicationContextRunner withOwnIndicator(ApplicationContextRunner runner) {
        return runner.withBean("codexHealthIndicator", HealthIndicator.class, () -> () -> Health.unknown().build());
    }
}
