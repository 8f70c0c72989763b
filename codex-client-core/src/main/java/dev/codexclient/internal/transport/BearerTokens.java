package dev.codexclient.internal.transport;

import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.internal.Redactor;
import dev.codexclient.transport.BearerTokenProvider;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Bearer-token rules the WebSocket transports share: asking the provider for a token at each connection attempt,
 * and deciding whether a token may travel to an endpoint at all.
 */
public final class BearerTokens {

    /** A dotted IPv4 literal; names are never resolved to decide loopback (DNS answers can change later). */
    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    /** What the built-in JWT pattern of the redactor already masks; other tokens are registered. */
    private static final Pattern JWT_SHAPE =
            Pattern.compile("eyJ[A-Za-z0-9_-]{4,}\\.[A-Za-z0-9_-]{4,}\\.[A-Za-z0-9_-]*");

    private BearerTokens() {
    }

    /**
     * The token for one connection attempt to {@code description}, or empty without a provider.
     *
     * @throws CodexTransportException when the provider throws, or returns a blank token or one with line breaks
     *                                 (which would inject headers into the handshake)
     */
    public static Optional<String> obtain(Optional<BearerTokenProvider> provider, String description,
                                          Redactor redactor) {
        if (provider.isEmpty()) {
            return Optional.empty();
        }
        String token;
        try {
            token = provider.get().bearerToken();
        } catch (RuntimeException e) {
            String m = e.getMessage();
            throw new CodexTransportException("The bearer token provider for " + description + " failed: "
                    + redactor.redact(e.getClass().getSimpleName() + (m == null ? "" : ": " + m)), e);
        }
        if (token == null || token.isBlank()) {
            throw new CodexTransportException("The bearer token provider for " + description
                    + " returned no token");
        }
        String stripped = token.strip();
        if (stripped.indexOf('\r') >= 0 || stripped.indexOf('\n') >= 0) {
            throw new CodexTransportException("The bearer token provider for " + description
                    + " returned a token with a line break");
        }
        if (!JWT_SHAPE.matcher(stripped).matches()) {
            // A JWT is masked by shape; anything else is masked by registration (a fixed token registers once).
            redactor.register(stripped);
        }
        return Optional.of(stripped);
    }

    /**
     * Whether {@code host} (as in a URI: IPv6 literals in brackets) is a loopback address: {@code localhost}, a
     * 127.0.0.0/8 literal or {@code [::1]}.
     */
    public static boolean isLoopbackHost(String host) {
        String h = host.toLowerCase(Locale.ROOT);
        if (h.equals("localhost") || h.endsWith(".localhost")) {
            return true;
        }
        if (IPV4.matcher(h).matches()) {
            return h.startsWith("127.");
        }
        if (h.startsWith("[") && h.endsWith("]")) {
            String inner = h.substring(1, h.length() - 1);
            return inner.equals("::1") || inner.equals("0:0:0:0:0:0:0:1") || inner.startsWith("::ffff:127.");
        }
        return false;
    }
}
