package dev.codexclient.approvals.boot;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;

/**
 * A service with the inbox, as a user's would be: its users (alice and bob may decide, mallory is signed in but may
 * not), run in the test's JVM or as a second instance in a JVM of its own ({@link #main}), which writes its port to
 * the file {@code --port-file} names.
 */
@SpringBootApplication
public class InboxTestApplication {
    public static final String PASSWORD = "secret-password";

    @Bean
    UserDetailsService users() {
        return new InMemoryUserDetailsManager(
                User.withUsername("alice").password("{noop}" + PASSWORD).roles("CODEX_APPROVER").build(),
                User.withUsername("bob").password("{noop}" + PASSWORD).roles("CODEX_APPROVER").build(),
                User.withUsername("mallory").password("{noop}" + PASSWORD).roles("VIEWER").build());
    }

    @Bean
    ApplicationListener<ApplicationReadyEvent> portFile(org.springframework.core.env.Environment env) {
        return event -> {
            String file = env.getProperty("port-file");
            if (file != null) {
                try {
                    Path tmp = Path.of(file + ".tmp");
                    Files.writeString(tmp, env.getProperty("local.server.port", ""));
                    Files.move(tmp, Path.of(file), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        };
    }

    public static void main(String[] args) {
        SpringApplication.run(InboxTestApplication.class, args);
    }
}
