package dev.codexclient.pool.internal;

import dev.codexclient.errors.CodexException;
import dev.codexclient.pool.PoolEndpoint;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.naming.Context;
import javax.naming.NamingEnumeration;
import javax.naming.NamingException;
import javax.naming.directory.Attribute;
import javax.naming.directory.Attributes;
import javax.naming.directory.DirContext;
import javax.naming.directory.InitialDirContext;

/**
 * The DNS lookups behind {@link dev.codexclient.pool.MemberResolver#dns} and {@link
 * dev.codexclient.pool.MemberResolver#srv}: A/AAAA through {@link InetAddress} (and the JVM's DNS cache), SRV through
 * the JDK's JNDI DNS provider.
 */
public final class DnsLookups {
    /** The JDK's DNS provider for JNDI, in module {@code jdk.naming.dns}. */
    private static final String DNS_PROVIDER = "com.sun.jndi.dns.DnsContextFactory";

    private DnsLookups() {
    }

    /** Refuses a scheme the pool's members cannot speak. */
    public static void checkScheme(String scheme) {
        if (!scheme.equals("ws") && !scheme.equals("wss")) {
            throw new IllegalArgumentException("a resolved member's scheme is ws or wss, not " + scheme);
        }
    }

    /** The addresses of {@code host}, in the order the system gives them, each an endpoint. */
    public static List<PoolEndpoint> addresses(String scheme, String host, int port) {
        InetAddress[] all;
        try {
            all = InetAddress.getAllByName(host);
        } catch (UnknownHostException e) {
            throw new CodexException("the pool's DNS name " + host + " did not resolve: " + e.getMessage(), e);
        }
        Map<String, PoolEndpoint> out = new LinkedHashMap<>();
        for (InetAddress a : all) {
            String literal = a.getHostAddress();
            // A scoped IPv6 literal (fe80::1%eth0) has no place in a URI's host.
            int scope = literal.indexOf('%');
            if (scope >= 0) {
                literal = literal.substring(0, scope);
            }
            String hostPart = a instanceof Inet6Address ? "[" + literal + "]" : literal;
            String name = hostPart + ":" + port;
            out.putIfAbsent(name, new PoolEndpoint(name, URI.create(scheme + "://" + name)));
        }
        return List.copyOf(out.values());
    }

    /**
     * The SRV records of {@code name}, each an endpoint named {@code target:port}, in the order of their priority
     * (lowest first) then weight (highest first).
     *
     * @param nameServer a {@code dns://host:port} URL of the name server to ask, or null for the system's
     */
    public static List<PoolEndpoint> srv(String scheme, String name, String nameServer) {
        Hashtable<String, String> env = new Hashtable<>();
        env.put(Context.INITIAL_CONTEXT_FACTORY, DNS_PROVIDER);
        env.put(Context.PROVIDER_URL, nameServer == null ? "dns:" : nameServer);
        env.put("com.sun.jndi.dns.timeout.initial", "2000");
        env.put("com.sun.jndi.dns.timeout.retries", "2");
        List<long[]> order = new ArrayList<>();
        List<PoolEndpoint> found = new ArrayList<>();
        DirContext ctx = null;
        try {
            ctx = new InitialDirContext(env);
            Attributes attributes = ctx.getAttributes(name, new String[] {"SRV"});
            Attribute srv = attributes.get("SRV");
            if (srv == null) {
                return List.of();
            }
            NamingEnumeration<?> values = srv.getAll();
            while (values.hasMore()) {
                // "priority weight port target."
                String[] parts = values.next().toString().trim().split("\\s+");
                if (parts.length != 4) {
                    continue;
                }
                String target = parts[3].endsWith(".") ? parts[3].substring(0, parts[3].length() - 1) : parts[3];
                int port = Integer.parseInt(parts[2]);
                if (target.isEmpty() || port < 1 || port > 65535) {
                    continue; // "." means: no service here
                }
                String endpoint = target + ":" + port;
                found.add(new PoolEndpoint(endpoint, URI.create(scheme + "://" + endpoint)));
                order.add(new long[] {Long.parseLong(parts[0]), Long.parseLong(parts[1])});
            }
        } catch (javax.naming.NoInitialContextException e) {
            throw new CodexException("SRV lookups need the JDK module jdk.naming.dns, which this runtime lacks: "
                    + e.getMessage(), e);
        } catch (NamingException | NumberFormatException e) {
            throw new CodexException("the SRV lookup of " + name + " failed: " + e, e);
        } catch (LinkageError e) {
            throw new CodexException("SRV lookups need the JDK module jdk.naming.dns, which this runtime lacks", e);
        } finally {
            if (ctx != null) {
                try {
                    ctx.close();
                } catch (NamingException ignored) {
                    // nothing held beyond the lookup
                }
            }
        }
        List<Integer> idx = new ArrayList<>();
        for (int i = 0; i < found.size(); i++) {
            idx.add(i);
        }
        idx.sort((x, y) -> {
            int byPriority = Long.compare(order.get(x)[0], order.get(y)[0]);
            return byPriority != 0 ? byPriority : Long.compare(order.get(y)[1], order.get(x)[1]);
        });
        Map<String, PoolEndpoint> out = new LinkedHashMap<>();
        for (int i : idx) {
            out.putIfAbsent(found.get(i).name(), found.get(i));
        }
        return List.copyOf(out.values());
    }
}
