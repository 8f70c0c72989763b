package dev.codexclient.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The version of this SDK, as the build wrote it into {@code version.properties} next to this class; the default
 * {@code clientInfo.version} of the {@code initialize} handshake.
 */
public final class ClientVersion {

    /** What {@link #current()} answers when the classes were not built by Maven (an IDE that does not filter). */
    public static final String UNKNOWN = "dev";

    private static final String CURRENT = read("version.properties");

    private ClientVersion() {
    }

    /** The artifact's version, e.g. {@code 1.2.3}, or {@link #UNKNOWN} when the build did not record one. */
    public static String current() {
        return CURRENT;
    }

    static String read(String resource) {
        try (InputStream in = ClientVersion.class.getResourceAsStream(resource)) {
            if (in == null) {
                return UNKNOWN;
            }
            Properties properties = new Properties();
            properties.load(in);
            String version = properties.getProperty("version", "").strip();
            // An unfiltered copy still holds the placeholder.
            return version.isEmpty() || version.contains("${") ? UNKNOWN : version;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource, e);
        }
    }
}
