package dev.codexclient;

import dev.codexclient.protocol.ProtocolJson;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A codex release version such as {@code 0.169.0}, ordered the semantic-versioning way (a pre-release such as
 * {@code 0.170.0-alpha.2} sorts before its release; build metadata is ignored).
 *
 * <pre>{@code
 * Optional<CodexVersion> server = codex.serverInfo().codexVersion();
 * if (server.isPresent() && !server.get().isAtLeast("0.150.0")) {
 *     // an older codex: see docs/COMPATIBILITY.md for what differs
 * }
 * }</pre>
 *
 * <p>Parsing is lenient where the text comes from a server ({@link #find}, {@link #fromUserAgent}): anything
 * unparseable gives an empty {@code Optional}, never an exception. {@link #text()} keeps the version as it was
 * written.
 */
public final class CodexVersion implements Comparable<CodexVersion> {
    /** major.minor[.patch][-pre-release][+build]; nine digits at most, so every number fits an int. */
    private static final String VERSION = "(\\d{1,9})\\.(\\d{1,9})(?:\\.(\\d{1,9}))?"
            + "(?:-([0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*))?(?:\\+([0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*))?";
    private static final Pattern EXACT = Pattern.compile("v?" + VERSION);
    private static final Pattern ANYWHERE = Pattern.compile("(?<![0-9A-Za-z.])" + VERSION + "(?![0-9A-Za-z])");
    /**
     * codex's user agent is {@code <originator>/<version> (<os> <os version>; <arch>) <terminal>[ (<suffix>)]}, where
     * the originator is the client's {@code clientInfo.name}: the version is the one right before the parenthesis.
     */
    private static final Pattern USER_AGENT_VERSION = Pattern.compile("/(" + VERSION + ") \\(");
    /** A user agent that fell back to {@code <originator>/<version>} alone. */
    private static final Pattern USER_AGENT_FALLBACK = Pattern.compile("/(" + VERSION + ")(?=\\s|$)");
    private static final String PINNED_RESOURCE = "/META-INF/codex-client/schema/VERSION";

    private final int major;
    private final int minor;
    private final int patch;
    private final String preRelease;
    private final String text;

    private CodexVersion(int major, int minor, int patch, String preRelease, String text) {
        this.major = major;
        this.minor = minor;
        this.patch = patch;
        this.preRelease = preRelease;
        this.text = text;
    }

    /**
     * Parses a version: {@code 0.169.0}, {@code 0.170.0-alpha.2}, {@code 1.2} (patch 0), optionally with a
     * leading {@code v} and surrounding whitespace.
     *
     * @param text the version
     * @return the parsed version
     * @throws IllegalArgumentException when {@code text} is not a version
     */
    public static CodexVersion parse(String text) {
        Objects.requireNonNull(text, "text");
        Matcher m = EXACT.matcher(text.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("not a codex version: \"" + text + "\"");
        }
        return of(m, 1, text.strip());
    }

    /**
     * {@return the first version in {@code text}, e.g. {@code 0.169.0} in {@code codex-cli 0.169.0}; empty when none}
     *
     * @param text any text, such as the output of {@code codex --version}
     */
    public static Optional<CodexVersion> find(String text) {
        if (text == null) {
            return Optional.empty();
        }
        Matcher m = ANYWHERE.matcher(text);
        return m.find() ? Optional.of(of(m, 1, m.group())) : Optional.empty();
    }

    /**
     * {@return the codex version named in the user agent of an {@code initialize} result; empty when it names none}
     * E.g. {@code 0.98.0} in {@code acme-bot/0.98.0 (Debian 12.0.0; x86_64) xterm (acme-bot; 1.4.0)}.
     *
     * @param userAgent the {@code userAgent} of the {@code initialize} result
     */
    public static Optional<CodexVersion> fromUserAgent(String userAgent) {
        if (userAgent == null) {
            return Optional.empty();
        }
        Matcher m = USER_AGENT_VERSION.matcher(userAgent);
        if (!m.find()) {
            m = USER_AGENT_FALLBACK.matcher(userAgent);
            if (!m.find()) {
                return Optional.empty();
            }
        }
        return Optional.of(of(m, 2, m.group(1)));
    }

    /** {@return the codex version whose protocol schema this SDK was generated from (the pinned version)} */
    public static CodexVersion pinned() {
        return Pinned.VERSION;
    }

    private static CodexVersion of(Matcher m, int first, String text) {
        String patch = m.group(first + 2);
        String pre = m.group(first + 3);
        return new CodexVersion(Integer.parseInt(m.group(first)), Integer.parseInt(m.group(first + 1)),
                patch == null ? 0 : Integer.parseInt(patch), pre == null ? "" : pre, text);
    }

    /** {@return the major number ({@code 0} in {@code 0.169.0})} */
    public int major() {
        return major;
    }

    /** {@return the minor number ({@code 169} in {@code 0.169.0})} */
    public int minor() {
        return minor;
    }

    /** {@return the patch number ({@code 0} in {@code 0.169.0}; {@code 0} when the text had none)} */
    public int patch() {
        return patch;
    }

    /** {@return the pre-release part ({@code alpha.2} in {@code 0.170.0-alpha.2}), or empty for a release} */
    public Optional<String> preRelease() {
        return preRelease.isEmpty() ? Optional.empty() : Optional.of(preRelease);
    }

    /** {@return the version as it was written, build metadata included} */
    public String text() {
        return text;
    }

    /**
     * {@return whether this version is {@code other} or newer}
     *
     * @param other the version to compare with
     */
    public boolean isAtLeast(CodexVersion other) {
        return compareTo(other) >= 0;
    }

    /**
     * {@return whether this version is {@code version} or newer}
     *
     * @param version the version to compare with, as {@link #parse(String)} reads it
     * @throws IllegalArgumentException when {@code version} is not a version
     */
    public boolean isAtLeast(String version) {
        return isAtLeast(parse(version));
    }

    /**
     * {@return whether this version is older than {@code other}}
     *
     * @param other the version to compare with
     */
    public boolean isBefore(CodexVersion other) {
        return compareTo(other) < 0;
    }

    /**
     * {@return whether this version is older than {@code version}}
     *
     * @param version the version to compare with, as {@link #parse(String)} reads it
     * @throws IllegalArgumentException when {@code version} is not a version
     */
    public boolean isBefore(String version) {
        return isBefore(parse(version));
    }

    /** Semantic-versioning precedence; build metadata does not count. */
    @Override
    public int compareTo(CodexVersion o) {
        int c = Integer.compare(major, o.major);
        if (c == 0) {
            c = Integer.compare(minor, o.minor);
        }
        if (c == 0) {
            c = Integer.compare(patch, o.patch);
        }
        return c != 0 ? c : comparePreRelease(preRelease, o.preRelease);
    }

    /** A release sorts after its pre-releases; identifiers compare numerically when both are numbers. */
    private static int comparePreRelease(String a, String b) {
        if (a.isEmpty() || b.isEmpty()) {
            return Boolean.compare(a.isEmpty(), b.isEmpty());
        }
        String[] x = a.split("\\.");
        String[] y = b.split("\\.");
        for (int i = 0; i < Math.min(x.length, y.length); i++) {
            boolean xNumeric = x[i].chars().allMatch(Character::isDigit);
            boolean yNumeric = y[i].chars().allMatch(Character::isDigit);
            int c;
            if (xNumeric && yNumeric) {
                c = new java.math.BigInteger(x[i]).compareTo(new java.math.BigInteger(y[i]));
            } else if (xNumeric != yNumeric) {
                c = xNumeric ? -1 : 1;
            } else {
                c = x[i].compareTo(y[i]);
            }
            if (c != 0) {
                return c;
            }
        }
        int c = Integer.compare(x.length, y.length);
        // "1" and "01" are equal by number; keep equals consistent with compareTo by falling back to the text.
        return c != 0 ? c : a.compareTo(b);
    }

    /** Equal when {@link #compareTo} says so: the same numbers and pre-release, whatever the build metadata. */
    @Override
    public boolean equals(Object o) {
        return o instanceof CodexVersion v && major == v.major && minor == v.minor && patch == v.patch
                && preRelease.equals(v.preRelease);
    }

    @Override
    public int hashCode() {
        return Objects.hash(major, minor, patch, preRelease);
    }

    /** The version as it was written ({@link #text()}). */
    @Override
    public String toString() {
        return text;
    }

    /** Read once, on first use: the protocol artifact ships the version its schema came from. */
    private static final class Pinned {
        static final CodexVersion VERSION = read();

        private static CodexVersion read() {
            try (InputStream in = ProtocolJson.class.getResourceAsStream(PINNED_RESOURCE)) {
                if (in == null) {
                    throw new IllegalStateException("codex-client-protocol lacks " + PINNED_RESOURCE
                            + " (a repackaged jar that dropped its resources?)");
                }
                return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + PINNED_RESOURCE, e);
            }
        }
    }
}
