package dev.codexclient.pool;

import java.net.URI;
import java.util.Objects;

/**
 * One app-server a {@link MemberResolver} names: the member's name, which identifies it from one resolution to the
 * next, and its address. Two answers naming the same endpoint name the same member: it keeps its client and its
 * threads.
 *
 * @param name the member's name, unique within one answer (e.g. {@code codex-0.codex.default.svc:8080})
 * @param uri  the server's address, e.g. {@code ws://codex-0.codex.default.svc:8080}
 */
public record PoolEndpoint(String name, URI uri) {
    /**
     * Checks the parts.
     *
     * @param name the member's name, not blank
     * @param uri  the server's address
     * @throws IllegalArgumentException when the name is blank
     */
    public PoolEndpoint {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(uri, "uri");
        if (name.isBlank()) {
            throw new IllegalArgumentException("an endpoint's name must not be blank");
        }
    }

    /**
     * An endpoint named after its URI's host and port.
     *
     * @param uri the server's address, with a host and a port
     * @return the endpoint named {@code host:port}
     * @throws IllegalArgumentException when the URI has no host or no port
     */
    public static PoolEndpoint of(URI uri) {
        Objects.requireNonNull(uri, "uri");
        if (uri.getHost() == null || uri.getPort() < 0) {
            throw new IllegalArgumentException("an endpoint's URI needs a host and a port: " + uri);
        }
        return new PoolEndpoint(uri.getHost() + ":" + uri.getPort(), uri);
    }
}
