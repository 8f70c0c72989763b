package dev.codexclient;

/** Tells whether a client has a telemetry listener. In the client's package for its package-private {@code runtime()}. */
public final class ClientEvents {
    private ClientEvents() {
    }

    /** Whether {@code client} has a listener at all. */
    public static boolean hasListener(CodexClient client) {
        return client.runtime().diagnostics().telemetryEnabled();
    }
}
