package dev.codexclient.transport;

import java.util.Locale;
import java.util.Objects;

/**
 * What kind of connection a client is on, for events and metrics: one of the constants for the transports the SDK
 * ships, or the kind a custom {@link Transport} names ({@link Transport#kind()}). Not an enum on purpose: a custom
 * transport, or one a later version adds, is a kind too, and compares, switches on {@link #name()} and prints as
 * itself. Never holds an address or a credential.
 *
 * @param name the kind in one lower-case word, e.g. {@code stdio}
 */
public record TransportKind(String name) {
    /** A child process spoken to over its stdin and stdout ({@link StdioTransport}). */
    public static final TransportKind STDIO = new TransportKind("stdio");
    /** A WebSocket over TCP ({@link WebSocketTransport}). */
    public static final TransportKind WEBSOCKET = new TransportKind("websocket");
    /** A WebSocket over a Unix domain socket ({@link UnixSocketTransport}). */
    public static final TransportKind UNIX = new TransportKind("unix");
    /** An in-process pipe, as to a fake server in tests ({@link InMemoryTransport}). */
    public static final TransportKind IN_MEMORY = new TransportKind("in-memory");
    /** A custom {@link Transport} that does not name its kind. */
    public static final TransportKind CUSTOM = new TransportKind("custom");

    /**
     * Checks the name: present, not blank, and lower-cased.
     *
     * @param name the kind in one lower-case word
     */
    public TransportKind {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("a transport kind needs a name");
        }
        name = name.strip().toLowerCase(Locale.ROOT);
    }

    /**
     * The kind of {@code transport}, as it names itself.
     *
     * @param transport the transport
     * @return its kind; {@link #CUSTOM} when it names none
     */
    public static TransportKind of(Transport transport) {
        String kind = transport.kind();
        return kind == null || kind.isBlank() ? CUSTOM : new TransportKind(kind);
    }

    /** {@return the name, as used in metric tags and logs} */
    @Override
    public String toString() {
        return name;
    }
}
