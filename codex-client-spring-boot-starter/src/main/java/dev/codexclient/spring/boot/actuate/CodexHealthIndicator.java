package dev.codexclient.spring.boot.actuate;

import dev.codexclient.spring.boot.CodexHealthCheck;
import java.util.Objects;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/**
 * The {@code codex} health indicator on Spring Boot 3.5, whose health types are in
 * {@code org.springframework.boot.actuate.health}: reports what a {@link CodexHealthCheck} finds. On Spring Boot 4.0
 * its place is taken by {@link dev.codexclient.spring.boot.health.CodexHealthIndicator}, of the same name in the
 * package that mirrors Spring Boot's move.
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
