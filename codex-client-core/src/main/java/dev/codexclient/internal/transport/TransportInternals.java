package dev.codexclient.internal.transport;

import dev.codexclient.internal.Redactor;
import dev.codexclient.transport.StdioTransport;

/**
 * Lets the client hand its redactor to the stdio transport it builds, so that secrets it learns later (a
 * refreshed token) are masked in the child's stderr too. Not part of the API: the package is not exported.
 */
public final class TransportInternals {

    /** Implemented by {@link StdioTransport.Builder}, which installs it when its class initializes. */
    public interface Access {
        void shareRedactor(StdioTransport.Builder builder, Redactor redactor);
    }

    private static volatile Access access;

    private TransportInternals() {
    }

    /** Called once, by {@link StdioTransport.Builder}'s static initializer. */
    public static void install(Access a) {
        access = a;
    }

    /** The transport {@code builder} builds masks with {@code redactor} (and the secrets given to the builder). */
    public static void shareRedactor(StdioTransport.Builder builder, Redactor redactor) {
        // The builder instance exists, so its class has been initialized and has installed the access.
        access.shareRedactor(builder, redactor);
    }
}
