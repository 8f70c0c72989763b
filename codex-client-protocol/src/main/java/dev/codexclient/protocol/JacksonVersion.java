package dev.codexclient.protocol;

import com.fasterxml.jackson.core.Version;

/**
 * Checks the Jackson on the class path before the protocol uses it. An application (a Spring Boot one, for
 * instance) picks the Jackson version, and an older one than the protocol needs fails in ways that do not say
 * why (a missing method, a cache class not found); this check names both versions instead.
 */
final class JacksonVersion {
    /** The oldest Jackson the protocol is tested with (see docs/COMPATIBILITY.md). */
    static final int MIN_MAJOR = 2;
    static final int MIN_MINOR = 17;

    private JacksonVersion() {
    }

    /**
     * Fails unless jackson-core and jackson-databind are both at least {@value #MIN_MAJOR}.{@value #MIN_MINOR}.
     *
     * @throws IllegalStateException naming the version found and the version needed
     */
    static void check() {
        check("jackson-databind", com.fasterxml.jackson.databind.cfg.PackageVersion.VERSION);
        check("jackson-core", com.fasterxml.jackson.core.json.PackageVersion.VERSION);
    }

    static void check(String artifact, Version found) {
        String problem = problem(artifact, found);
        if (problem != null) {
            throw new IllegalStateException(problem);
        }
    }

    /** The message for a version that is too old, or null when it will do. */
    static String problem(String artifact, Version found) {
        if (found.getMajorVersion() > MIN_MAJOR
                || (found.getMajorVersion() == MIN_MAJOR && found.getMinorVersion() >= MIN_MINOR)) {
            return null;
        }
        return "codex-client needs " + artifact + " " + MIN_MAJOR + "." + MIN_MINOR + " or newer, but "
                + (found.isUnknownVersion() ? "an unknown version" : found.toString()) + " is on the class path; "
                + "upgrade Jackson (in Spring Boot, set the jackson-bom.version property to " + MIN_MAJOR + "."
                + MIN_MINOR + ".0 or newer)";
    }
}
