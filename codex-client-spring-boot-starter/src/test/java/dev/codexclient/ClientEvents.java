package dev.codexclient;

import dev.codexclient.events.CodexEventListener;
import java.util.function.Consumer;

/**
 * Emits an event through a client's own emitter, to see which listener the auto-configuration installed, whatever
 * events the client itself emits so far. In the client's package for its package-private {@code events()}.
 */
public final class ClientEvents {
    private ClientEvents() {
    }

    /** Queues {@code call} for the listener of {@code client}, as the client queues its own events. */
    public static void emit(CodexClient client, Consumer<CodexEventListener> call) {
        client.events().emit(call);
    }

    /** Whether {@code client} has a listener at all. */
    public static boolean hasListener(CodexClient client) {
        return client.events().enabled();
    }
}
