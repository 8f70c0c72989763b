package dev.codexclient.it;

import dev.codexclient.CodexVersion;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The codex versions the compatibility tests run against: {@code -Dcodex.compat.versions=0.98.0,0.120.0,0.169.0}
 * (comma-separated) and/or {@code -Dcodex.compat.version=0.120.0} (one, as the CI matrix passes it). Each is
 * installed into the cache with npm when missing.
 */
final class CompatVersions {
    static final String VERSIONS_PROPERTY = "codex.compat.versions";
    static final String VERSION_PROPERTY = "codex.compat.version";

    private CompatVersions() {
    }

    /** The configured versions, in the order given, without repeats; empty when none is configured. */
    static List<String> configured() {
        Set<String> out = new LinkedHashSet<>();
        Stream.of(System.getProperty(VERSIONS_PROPERTY, ""), System.getProperty(VERSION_PROPERTY, ""))
                .flatMap(v -> Arrays.stream(v.split(",")))
                .map(String::strip).filter(v -> !v.isEmpty()).forEach(v -> {
                    CodexVersion.parse(v); // a typo fails here, not as an npm error
                    out.add(v);
                });
        return List.copyOf(out);
    }

    /** The configured versions, or the pinned one when none is configured. */
    static List<String> configuredOrPinned() {
        List<String> configured = configured();
        return configured.isEmpty() ? List.of(CodexVersion.pinned().text()) : configured;
    }
}
