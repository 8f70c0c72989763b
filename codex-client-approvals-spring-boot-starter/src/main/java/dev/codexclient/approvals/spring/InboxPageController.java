package dev.codexclient.approvals.spring;

import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import org.springframework.http.CacheControl;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.security.web.csrf.CsrfToken;
import org.springframework.stereotype.Controller;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseBody;

/**
 * The inbox's page under {@code codex.approvals.inbox.path}: a static page and one script, no build step. The
 * script reads the entries from the API, shows each request in full, decides with the session's CSRF token, and
 * follows the changes as server-sent events. Whatever codex or the model wrote is put into the page as text
 * ({@code textContent}), never as HTML, and the Content-Security-Policy allows no script but the inbox's own: a
 * command that contains {@code <script>} shows as that text and runs nothing.
 */
@Controller
@RequestMapping("${codex.approvals.inbox.path:/codex/approvals}")
public class InboxPageController {
    /** Scripts and styles from the inbox's own paths only; no inline script, no plug-ins, no framing. */
    static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
            + "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

    private final InboxProperties properties;
    private final String script = resource("inbox.js");
    private final String style = resource("inbox.css");

    /**
     * The page of the inbox the properties describe.
     *
     * @param properties the properties
     */
    public InboxPageController(InboxProperties properties) {
        this.properties = properties;
    }

    /**
     * The page.
     *
     * @param request   the request, for its CSRF token
     * @param principal who is signed in
     * @return the page
     */
    @GetMapping({"", "/"})
    @ResponseBody
    public ResponseEntity<String> page(HttpServletRequest request, Principal principal) {
        CsrfToken csrf = (CsrfToken) request.getAttribute(CsrfToken.class.getName());
        String base = request.getContextPath() + properties.path();
        String html = """
                <!DOCTYPE html>
                <html lang="en">
                <head>
                <meta charset="utf-8">
                <meta name="viewport" content="width=device-width, initial-scale=1">
                <meta name="inbox-base" content="%s">
                <meta name="csrf-header" content="%s">
                <meta name="csrf-token" content="%s">
                <title>codex approvals</title>
                <link rel="stylesheet" href="%s/inbox.css">
                <script src="%s/inbox.js" defer></script>
                </head>
                <body>
                <header>
                  <h1>codex approvals</h1>
                  <span id="user">Signed in as <b>%s</b></span>
                  <span id="live" class="live off" title="live updates">connecting</span>
                  <form method="post" action="%s/logout"><input type="hidden" name="%s" value="%s"><button>Sign out</button></form>
                </header>
                <main>
                  <section><h2>Pending <span id="pending-count">0</span></h2><div id="pending" class="entries"></div>
                    <p id="no-pending" class="empty">Nothing waits for a decision.</p></section>
                  <section><h2>Ended</h2><div id="ended" class="entries"></div></section>
                </main>
                </body>
                </html>
                """.formatted(Html.escape(base), csrf == null ? "" : Html.escape(csrf.getHeaderName()),
                csrf == null ? "" : Html.escape(csrf.getToken()), Html.escape(base), Html.escape(base),
                Html.escape(principal.getName()), Html.escape(base),
                csrf == null ? "_csrf" : Html.escape(csrf.getParameterName()),
                csrf == null ? "" : Html.escape(csrf.getToken()));
        return ResponseEntity.ok().contentType(new MediaType(MediaType.TEXT_HTML, StandardCharsets.UTF_8))
                .cacheControl(CacheControl.noStore()).body(html);
    }

    /**
     * The sign-in form.
     *
     * @param request the request, for its CSRF token and whether the last try failed
     * @return the form
     */
    @GetMapping("/login")
    @ResponseBody
    public ResponseEntity<String> login(HttpServletRequest request) {
        CsrfToken csrf = (CsrfToken) request.getAttribute(CsrfToken.class.getName());
        String base = request.getContextPath() + properties.path();
        String note = request.getParameter("error") != null ? "<p class=\"error\">Wrong name or password.</p>"
                : request.getParameter("signed-out") != null ? "<p>Signed out.</p>" : "";
        String html = """
                <!DOCTYPE html>
                <html lang="en">
                <head><meta charset="utf-8"><title>Sign in: codex approvals</title>
                <link rel="stylesheet" href="%s/inbox.css"></head>
                <body class="login"><h1>codex approvals</h1>%s
                <form method="post" action="%s/login">
                <label>Name <input name="username" id="username" autocomplete="username" required></label>
                <label>Password <input name="password" id="password" type="password" autocomplete="current-password" required></label>
                <input type="hidden" name="%s" value="%s">
                <button type="submit" id="sign-in">Sign in</button>
                </form></body></html>
                """.formatted(Html.escape(base), note, Html.escape(base),
                csrf == null ? "_csrf" : Html.escape(csrf.getParameterName()),
                csrf == null ? "" : Html.escape(csrf.getToken()));
        return ResponseEntity.ok().contentType(new MediaType(MediaType.TEXT_HTML, StandardCharsets.UTF_8))
                .cacheControl(CacheControl.noStore()).body(html);
    }

    /** {@return the page's script} */
    @GetMapping("/inbox.js")
    @ResponseBody
    public ResponseEntity<String> script() {
        return ResponseEntity.ok().contentType(new MediaType("text", "javascript", StandardCharsets.UTF_8))
                .body(script);
    }

    /** {@return the page's style} */
    @GetMapping("/inbox.css")
    @ResponseBody
    public ResponseEntity<String> style() {
        return ResponseEntity.ok().contentType(new MediaType("text", "css", StandardCharsets.UTF_8)).body(style);
    }

    private static String resource(String name) {
        try (InputStream in = InboxPageController.class.getResourceAsStream("page/" + name)) {
            if (in == null) {
                throw new IllegalStateException("the inbox's page lacks " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
