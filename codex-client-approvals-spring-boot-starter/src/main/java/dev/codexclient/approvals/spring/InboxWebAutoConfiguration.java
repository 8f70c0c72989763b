package dev.codexclient.approvals.spring;

import dev.codexclient.approvals.ApprovalInbox;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.HttpStatusEntryPoint;
import org.springframework.security.web.util.matcher.RequestMatcher;
import org.springframework.http.HttpStatus;

/**
 * The inbox's page and REST API, and who may use them. Every request under {@code codex.approvals.inbox.path} needs
 * an authenticated user with the role {@code codex.approvals.inbox.role}; a state-changing one (a decision) also
 * needs the session's CSRF token. The page signs in with a form of its own; the API answers 401 (with a Basic
 * challenge, for scripts) or 403, and changes nothing then.
 *
 * <p>The filter chain covers the inbox's paths only, ahead of the application's chains; it is ordered after Spring
 * Boot's default security, so an application without a chain of its own keeps Boot's for everything else. An
 * application that secures the inbox itself declares a {@link SecurityFilterChain} bean named
 * {@code codexInboxSecurityFilterChain}.
 */
@AutoConfiguration(after = InboxAutoConfiguration.class, afterName = {
        "org.springframework.boot.autoconfigure.security.servlet.SecurityAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.security.servlet.ManagementWebSecurityAutoConfiguration",
        "org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration",
        "org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration"})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({SecurityFilterChain.class, HttpSecurity.class,
        org.springframework.web.servlet.DispatcherServlet.class})
@ConditionalOnBean(ApprovalInbox.class)
public class InboxWebAutoConfiguration {

    /** Created by Spring when the auto-configuration applies. */
    public InboxWebAutoConfiguration() {
    }

    /**
     * The REST API.
     *
     * @param inbox the inbox
     * @return the controller
     */
    @Bean
    public InboxApiController codexInboxApi(ApprovalInbox inbox) {
        return new InboxApiController(inbox);
    }

    /**
     * The page.
     *
     * @param properties the properties
     * @return the controller
     */
    @Bean
    public InboxPageController codexInboxPage(InboxProperties properties) {
        return new InboxPageController(properties);
    }

    /**
     * Who may see the inbox and decide (see the class comment).
     *
     * @param http       Spring Security's builder
     * @param properties the properties
     * @return the chain of the inbox's paths
     * @throws Exception as Spring Security's builder may
     */
    @Bean
    @Order(Ordered.HIGHEST_PRECEDENCE + 100)
    @ConditionalOnMissingBean(name = "codexInboxSecurityFilterChain")
    public SecurityFilterChain codexInboxSecurityFilterChain(HttpSecurity http, InboxProperties properties)
            throws Exception {
        String base = properties.path();
        RequestMatcher inbox = r -> within(r.getRequestURI(), r.getContextPath(), base);
        RequestMatcher api = r -> within(r.getRequestURI(), r.getContextPath(), base + "/api");
        RequestMatcher login = r -> path(r.getRequestURI(), r.getContextPath()).equals(base + "/login");
        RequestMatcher assets = r -> {
            String p = path(r.getRequestURI(), r.getContextPath());
            return p.equals(base + "/inbox.css");
        };
        http.securityMatcher(inbox)
                .authorizeHttpRequests(a -> a
                        .requestMatchers(login, assets).permitAll()
                        .anyRequest().hasRole(properties.role()))
                .formLogin(form -> form.loginPage(base + "/login").loginProcessingUrl(base + "/login")
                        .defaultSuccessUrl(base + "/", false).failureUrl(base + "/login?error").permitAll())
                .logout(out -> out.logoutUrl(base + "/logout").logoutSuccessUrl(base + "/login?signed-out"))
                .httpBasic(Customizer.withDefaults())
                .exceptionHandling(e -> e
                        .defaultAuthenticationEntryPointFor(new HttpStatusEntryPoint(HttpStatus.UNAUTHORIZED), api)
                        .defaultAccessDeniedHandlerFor((request, response, denied) -> {
                            // Written here, not through the error page: the error dispatch is another chain's.
                            response.setStatus(HttpServletResponse.SC_FORBIDDEN);
                            response.setContentType("application/json");
                            response.getWriter().write("{\"error\":\"refused: a user with the role "
                                    + properties.role().replace("\"", "") + " and the session's CSRF token may decide\"}");
                        }, api))
                .headers(h -> h.contentSecurityPolicy(csp -> csp.policyDirectives(InboxPageController.CSP)));
        return http.build();
    }

    private static boolean within(String uri, String context, String base) {
        String p = path(uri, context);
        return p.equals(base) || p.startsWith(base + "/");
    }

    private static String path(String uri, String context) {
        return context != null && !context.isEmpty() && uri.startsWith(context) ? uri.substring(context.length())
                : uri;
    }
}
