package dev.codexclient.approvals.boot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * HTTP to a running service as a browser or a script does it: a session of its own (cookies), signed in with the
 * page's form, or requests with Basic credentials.
 */
public final class Http {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final String root;
    private final String base;
    private final HttpClient client = HttpClient.newBuilder().cookieHandler(new CookieManager())
            .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(10)).build();
    private String csrfHeader;
    private String csrfToken;

    public Http(int port) {
        this.root = "http://127.0.0.1:" + port;
        this.base = root + "/codex/approvals";
    }

    public record Answer(int status, String body, java.net.http.HttpHeaders headers) {
        public JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new AssertionError("not JSON: " + body, e);
            }
        }
    }

    /** Signs in with the page's form, and reads the page's CSRF token. */
    public Http signIn(String user, String password) throws Exception {
        Answer form = get("/login", null);
        String token = match(form.body(), "name=\"_csrf\" value=\"([^\"]+)\"");
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(base + "/login"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("username=" + enc(user) + "&password=" + enc(password)
                        + "&_csrf=" + enc(token))).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 302 || r.headers().firstValue("Location").orElse("").contains("error")) {
            throw new AssertionError("sign-in failed: " + r.statusCode() + " " + r.headers().map());
        }
        // The session's token after the sign-in (which renews it): the sign-in form, open to everyone, shows it.
        csrfHeader = "X-CSRF-TOKEN";
        csrfToken = match(get("/login", null).body(), "name=\"_csrf\" value=\"([^\"]+)\"");
        return this;
    }

    public Answer get(String path, String basic) throws Exception {
        // As a browser asks for a page, and a script for JSON.
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).GET()
                .header("Accept", path.startsWith("/api") ? "application/json" : "text/html,*/*;q=0.8");
        if (basic != null) {
            b.header("Authorization", basic);
        }
        return send(b);
    }

    /** A GET of a path outside the inbox (Actuator's), with Basic credentials. */
    public Answer getOutside(String path, String basic) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(root + path)).GET().header("Accept", "application/json")
                .header("Authorization", basic));
    }

    /** A POST with the session's CSRF token (when signed in) and, if given, Basic credentials. */
    public Answer post(String path, String json, String basic, boolean withCsrf) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        if (basic != null) {
            b.header("Authorization", basic);
        }
        if (withCsrf && csrfHeader != null) {
            b.header(csrfHeader, csrfToken);
        }
        return send(b);
    }

    public Answer decide(String id, String decision) throws Exception {
        return post("/api/entries/" + id + "/decision", "{\"decision\":\"" + decision + "\"}", null, true);
    }

    public static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password)
                .getBytes(StandardCharsets.UTF_8));
    }

    private Answer send(HttpRequest.Builder b) throws Exception {
        HttpResponse<String> r = client.send(b.timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
        return new Answer(r.statusCode(), r.body(), r.headers());
    }

    private static String match(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        if (!m.find()) {
            throw new AssertionError("no " + regex + " in " + text);
        }
        return m.group(1).replace("&amp;", "&").replace("&quot;", "\"").replace("&#39;", "'")
                .replace("&lt;", "<").replace("&gt;", ">");
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
