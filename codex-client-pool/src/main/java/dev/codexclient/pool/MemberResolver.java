package dev.codexclient.pool;

import dev.codexclient.pool.internal.DnsLookups;
import java.util.List;
import java.util.Objects;

/**
 * Tells a {@link CodexPool} which app-servers it has: the pool asks it at its build and then every
 * {@link CodexPool.Builder#resolveEvery(java.time.Duration) interval}, takes in the endpoints it did not have,
 * and drains the members no longer named (no new threads or turns, running turns finish, then the client is
 * closed). Like a gRPC name resolver, but asked, not pushing.
 *
 * <p>An answer that fails (the method throws) leaves the members as they are: a DNS failure does not empty the
 * pool. An empty answer is an answer: every resolved member drains.
 *
 * <p>The pool calls it from its own thread, one call at a time; it may block (a DNS query).
 */
@FunctionalInterface
public interface MemberResolver {

    /**
     * {@return the endpoints of the moment; their names are unique}
     *
     * @throws RuntimeException when the answer cannot be had now; the pool keeps its members and asks again at the
     *                          next interval
     */
    List<PoolEndpoint> resolve();

    /**
     * A resolver that always gives the same endpoints.
     *
     * @param endpoints the endpoints
     * @return the resolver
     */
    static MemberResolver fixed(List<PoolEndpoint> endpoints) {
        List<PoolEndpoint> copy = List.copyOf(endpoints);
        return () -> copy;
    }

    /**
     * The A and AAAA records of {@code host} (a Kubernetes headless Service's name has one per ready pod), each
     * an endpoint {@code scheme://address:port} named {@code address:port}. Addresses are looked up with
     * {@link java.net.InetAddress#getAllByName(String)}, so the JVM's DNS cache applies: with a security manager's
     * default or {@code networkaddress.cache.ttl} set high, a changed answer is seen only once the cache expires
     * (set {@code networkaddress.cache.ttl} to a few seconds in the {@code java.security} file or with
     * {@link java.security.Security#setProperty(String, String)} before the first lookup). A pod that restarts
     * usually comes back with another address, so it becomes a new member; use {@link #srv(String, String)} for
     * members that keep their name across restarts (a StatefulSet's pods).
     *
     * @param scheme {@code ws} or {@code wss}
     * @param host   the name to look up, e.g. {@code codex.default.svc.cluster.local}
     * @param port   the servers' port
     * @return the resolver; a name that does not resolve is a failed answer (the members stay)
     */
    static MemberResolver dns(String scheme, String host, int port) {
        Objects.requireNonNull(scheme, "scheme");
        Objects.requireNonNull(host, "host");
        DnsLookups.checkScheme(scheme);
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
        return () -> DnsLookups.addresses(scheme, host, port);
    }

    /**
     * The SRV records of {@code name} (for a Kubernetes headless Service with a named port:
     * {@code _PORTNAME._tcp.SERVICE.NAMESPACE.svc.cluster.local}), each an endpoint {@code scheme://target:port}
     * named {@code target:port}. A StatefulSet's pods are named by their stable host names
     * ({@code codex-0.codex.default.svc.cluster.local}), so a pod that restarts is the same member: its client's
     * restart policy connects to it again and resumes its threads. Looked up through the JDK's DNS provider for JNDI
     * (module {@code jdk.naming.dns}) with the system's name servers; a runtime image without that module answers
     * every lookup with a failure that says so.
     *
     * @param scheme {@code ws} or {@code wss}
     * @param name   the SRV name to look up
     * @return the resolver; a name that does not resolve is a failed answer (the members stay)
     */
    static MemberResolver srv(String scheme, String name) {
        Objects.requireNonNull(scheme, "scheme");
        Objects.requireNonNull(name, "name");
        DnsLookups.checkScheme(scheme);
        return () -> DnsLookups.srv(scheme, name, null);
    }
}
