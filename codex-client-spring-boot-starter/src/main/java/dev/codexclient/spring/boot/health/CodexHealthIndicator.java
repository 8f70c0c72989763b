package dev.codexclient.spring.boot.health;

import dev.codexclient.spring.boot.CodexHealthCheck;
import java.util.Objects;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code codex} health indicator on Spring Boot 4.0, whose health types moved to
 * {@code org.springframework.boot.health.contributor} (the {@code spring-boot-health} module, which Actuator
 * brings): reports what a {@link CodexHealthCheck} finds. On Spring Boot 3.5 its place is taken by
 * {@link dev.codexclient.spring.boot.actuate.CodexHealthIndicator}.
 */
public final class CodexHealthIndicator implements HealthIndicator {

    private final CodexHealthCheck check;

    /**
     * An indicator that reports {@code check}.
     *
     * @param check the check of the client's server
     */
    public CodexHealthIndicator(CodexHealthCheck check) {
        this.check = Objects.requireNonNull(check, "check");
    }

    @Override
    public Health health() {
        CodexHealthCheck.Result result = check.check();
        return (result.up() ? Health.up() : Health.down()).withDetails(result.details()).build();
    }
}
