package dev.codexclient.internal.session;

import dev.codexclient.transport.StdioTransport;
import dev.codexclient.transport.Transport;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * Where a client's server comes from, as its builder was told: a transport of the user's, a factory of them, or the
 * {@code codex app-server} the client spawns over stdio with the settings made for it. It rejects the combinations
 * that would silently ignore a setting, and gives the transport of each connection.
 */
public final class ServerSource {
    private Supplier<? extends Transport> transport;
    /** Whether {@link #transport} gives one transport only (so a lost connection cannot be replaced). */
    private boolean singleTransport;
    private final StdioTransport.Builder stdio = StdioTransport.builder();
    /** The stdio settings made, by the builder's method, to tell a user they clash with transport(...). */
    private final Set<String> stdioSettings = new LinkedHashSet<>();

    /** @param mask what the spawned server's stdio transport masks in what it logs, besides its own */
    public ServerSource(UnaryOperator<String> mask) {
        stdio.alsoMask(mask);
    }

    /** One transport, of the user's. */
    public void transport(Transport transport) {
        Objects.requireNonNull(transport, "transport");
        this.transport = () -> transport;
        this.singleTransport = true;
    }

    /** A new transport from {@code factory} for each connection. */
    public void transportFactory(Supplier<? extends Transport> factory) {
        this.transport = Objects.requireNonNull(factory, "factory");
        this.singleTransport = false;
    }

    /**
     * A setting of the server the client spawns.
     *
     * @param setting the builder's method that made it, as the clash messages name it, e.g. {@code "codexHome(...)"}
     * @param apply   makes the setting on the stdio transport's builder
     */
    public void stdio(String setting, Consumer<StdioTransport.Builder> apply) {
        apply.accept(stdio);
        stdioSettings.add(setting);
    }

    /**
     * Rejects settings that would be silently ignored.
     *
     * @param restarts whether a restart policy was given, which needs a new transport for each connection
     * @throws IllegalStateException naming the clashing settings and what to do instead
     */
    public void check(boolean restarts) {
        if (restarts && singleTransport) {
            throw new IllegalStateException("restartPolicy(...) replaces a lost connection with a new transport, "
                    + "but transport(...) gives one transport only: use transportFactory(...) instead");
        }
        if (transport != null && !stdioSettings.isEmpty()) {
            throw new IllegalStateException("transport(...) was given together with "
                    + String.join(", ", stdioSettings) + ", which configure the codex app-server the client "
                    + "would spawn itself; with a transport of your own they would be ignored. Configure that "
                    + "transport instead (e.g. StdioTransport.builder().codexHome(...)), or drop transport(...)");
        }
        if (stdioSettings.contains("codexBinary(...)") && stdioSettings.contains("command(...)")) {
            throw new IllegalStateException("codexBinary(...) and command(...) both name the program to spawn; "
                    + "use one of them (command(...) for a program with arguments of its own)");
        }
    }

    /** Where the transports of connections come from: the factory given, or the stdio settings. */
    public Supplier<? extends Transport> transports() {
        return transport != null ? transport : stdio::build;
    }
}
