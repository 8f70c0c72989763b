package dev.codexclient.internal;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Masks secrets in text before it reaches a log or an exception message: API keys, bearer tokens, JWTs, the values
 * of secret-looking keys in JSON, TOML, env and header syntax, and any exact strings registered at runtime (the API
 * key the client was given, for instance).
 *
 * <p>Thread-safe. Redaction errs on the side of masking: a false positive costs a less useful log line, a false
 * negative leaks a credential. It is linear in the text but not free (a few hundred nanoseconds per character in
 * the worst case), so callers redact what they are about to log, not every message.
 */
public final class Redactor {

    /** What every masked value is replaced with. */
    public static final String MASK = "[REDACTED]";

    /** Shorter registered strings would mask ordinary words and numbers all over the logs. */
    private static final int MIN_REGISTERED_LENGTH = 6;
    /** How many refreshed tokens are kept (see {@link #registerRefreshed}). */
    static final int REFRESHED_KEPT = 8;

    private final Set<String> secrets = new CopyOnWriteArraySet<>();
    /** The latest refreshed tokens, oldest first; guarded by itself. */
    private final Deque<String> refreshed = new ArrayDeque<>();
    /** A further masking, applied last; the identity unless another redactor's masking was handed over. */
    private final UnaryOperator<String> also;

    /**
     * Creates a redactor with the built-in patterns and no registered secrets. Each client and each transport has
     * its own: a secret registered with one is neither masked nor kept by any other.
     */
    public Redactor() {
        this(UnaryOperator.identity());
    }

    /**
     * Creates a redactor that also masks what {@code also} masks, after its own secrets and patterns: a transport
     * built by a client masks what the client masks, secrets it learns later included.
     *
     * @param also a further masking, applied last
     */
    public Redactor(UnaryOperator<String> also) {
        this.also = java.util.Objects.requireNonNull(also, "also");
    }

    /**
     * Masks {@code secret} wherever it appears from now on. Blank strings and strings shorter than six characters
     * are ignored, because masking them would garble unrelated text.
     *
     * @return this redactor
     */
    public Redactor register(String secret) {
        if (secret != null) {
            String trimmed = secret.strip();
            if (trimmed.length() >= MIN_REGISTERED_LENGTH) {
                secrets.add(trimmed);
            }
        }
        return this;
    }

    /**
     * Masks a token that replaces an earlier one (a refreshed ChatGPT access token), keeping only the latest
     * {@value #REFRESHED_KEPT}: a client that refreshes tokens for weeks does not keep every token it ever saw. The
     * oldest one kept is forgotten unless it was also {@link #register registered}.
     *
     * @return this redactor
     */
    public Redactor registerRefreshed(String token) {
        if (token == null) {
            return this;
        }
        String trimmed = token.strip();
        if (trimmed.length() < MIN_REGISTERED_LENGTH) {
            return this;
        }
        synchronized (refreshed) {
            if (refreshed.contains(trimmed)) {
                return this;
            }
            refreshed.addLast(trimmed);
            secrets.add(trimmed);
            while (refreshed.size() > REFRESHED_KEPT) {
                secrets.remove(refreshed.removeFirst());
            }
        }
        return this;
    }

    /** How many secrets this redactor masks by their exact text. */
    public int registeredCount() {
        return secrets.size();
    }

    /** Whether {@code secret} was registered (after trimming). */
    public boolean isRegistered(String secret) {
        return secret != null && secrets.contains(secret.strip());
    }

    /** Returns {@code text} with every secret masked; {@code null} becomes the empty string. */
    public String redact(CharSequence text) {
        if (text == null) {
            return "";
        }
        String s = text.toString();
        if (s.isEmpty()) {
            return s;
        }
        // Registered secrets first: they may be of any shape, and a pattern below could otherwise mask only a part.
        for (String secret : secrets) {
            if (s.contains(secret)) {
                s = s.replace(secret, MASK);
            }
        }
        // Cheap substring gates first: most log lines contain none of these and skip the regular expressions.
        String lower = s.toLowerCase(Locale.ROOT);
        boolean secretKey = lower.contains("key") || lower.contains("token") || lower.contains("auth")
                || lower.contains("pass") || lower.contains("secret");
        if (secretKey) {
            s = maskKeyValues(s);
        }
        if (lower.contains("bearer")) {
            s = Patterns.BEARER.matcher(s).replaceAll(m -> Matcher.quoteReplacement(m.group(1) + m.group(2) + MASK));
        }
        if (s.contains("eyJ")) {
            s = Patterns.JWT.matcher(s).replaceAll(Matcher.quoteReplacement(MASK));
        }
        if (s.contains("sk-")) {
            s = Patterns.SK_KEY.matcher(s).replaceAll(Matcher.quoteReplacement(MASK));
        }
        return also.apply(s);
    }

    private static String maskKeyValues(String text) {
        String s = Patterns.JSON_PAIR.matcher(text)
                .replaceAll(m -> Matcher.quoteReplacement(m.group(1) + MASK + m.group(3)));
        return Patterns.ASSIGNMENT.matcher(s).replaceAll(m -> {
            String value;
            if (m.group(3) != null) {
                value = '"' + MASK + '"';
            } else if (m.group(4) != null) {
                value = '\'' + MASK + '\'';
            } else {
                value = MASK;
            }
            return Matcher.quoteReplacement(m.group(1) + m.group(2) + value);
        });
    }

    /**
     * The patterns, compiled on first use: every client builder makes a redactor, while text that needs
     * a pattern is rare (the substring gates in {@link #redact} skip most of it), and compiling them is a
     * noticeable part of a cold start.
     */
    private static final class Patterns {
        /**
         * OpenAI-style keys: {@code sk-}, {@code sk-proj-}, {@code sk-svcacct-}, ... The 16-character floor keeps
         * words such as "sk-learn" intact.
         */
        private static final Pattern SK_KEY = Pattern.compile("(?<![A-Za-z0-9])sk-[A-Za-z0-9_-]{16,}");

        /** "Bearer" and what follows, except the words "token(s)": "missing bearer token" hides nothing. */
        private static final Pattern BEARER = Pattern.compile("(?i)\\b(bearer)(\\s+)(?!tokens?\\b)[A-Za-z0-9._~+/=-]+");

        /**
         * Three base64url parts, the first starting with the encoding of <code>{"</code>; the signature may be
         * empty.
         */
        private static final Pattern JWT =
                Pattern.compile("(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{4,}\\.[A-Za-z0-9_-]{4,}\\.[A-Za-z0-9_-]*");

        /**
         * A key whose value is a secret: the secret word may carry a prefix ({@code OPENAI_API_KEY},
         * {@code client_secret}) but must end the key, so {@code max_tokens} or {@code tokenUsage} do not match.
         */
        private static final String SECRET_KEY = "[A-Za-z0-9_.-]{0,40}?(?:api[_-]?key|access[_-]?token|id[_-]?token"
                + "|refresh[_-]?token|auth[_-]?token|token|authorization|password|passwd|secret)";

        /** {@code "apiKey": "value"} in JSON, escaped quotes included. */
        private static final Pattern JSON_PAIR = Pattern.compile(
                "(?i)(\"" + SECRET_KEY + "\"\\s*:\\s*\")((?:[^\"\\\\]|\\\\.)*)(\")");

        /** {@code OPENAI_API_KEY=value}, {@code api_key = "value"}, {@code Authorization: Bearer value}. */
        private static final Pattern ASSIGNMENT = Pattern.compile(
                "(?i)(?<![A-Za-z0-9_.-])(" + SECRET_KEY + ")(\\s*[=:]\\s*)"
                        + "(?:\"((?:[^\"\\\\]|\\\\.)*)\"|'([^']*)'|((?:(?:bearer|basic)\\s+)?[^\\s,;&\"'}\\]]+))");
    }
}
