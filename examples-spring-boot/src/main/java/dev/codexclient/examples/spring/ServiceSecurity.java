package dev.codexclient.examples.spring;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Who may use what. The approvals inbox secures its own paths (a signed-in user with the role CODEX_APPROVER, the
 * session's CSRF token for a decision); this chain covers the rest of the service, whose endpoints stay as open as
 * they were: {@code /ask}, {@code /stream} and Actuator. A real service puts them behind its own sign-in too.
 */
@Configuration(proxyBeanMethods = false)
public class ServiceSecurity {

    /**
     * The service's endpoints, open, without CSRF (their callers are scripts, not browsers with a session).
     *
     * @param http Spring Security's builder
     * @return the chain
     * @throws Exception as the builder may
     */
    @Bean
    SecurityFilterChain serviceEndpoints(HttpSecurity http) throws Exception {
        return http.authorizeHttpRequests(a -> a.anyRequest().permitAll())
                .csrf(c -> c.disable())
                .build();
    }
}
