package dev.codexclient.benchmarks;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A class loader that loads the SDK's classes ({@code dev.codexclient.*}) from its own class path first, and
 * everything else (the JDK, Jackson, SLF4J, JMH) from the benchmarks' loader: so one JVM can hold this checkout's
 * protocol and core next to another commit's, each with the benchmarks' own classes linked to it, and time both
 * side by side. Each side has a loader of its own, built the same way, so that neither runs on the application
 * loader and the two are set up alike.
 */
final class SideLoader extends URLClassLoader {
    static {
        registerAsParallelCapable();
    }

    private SideLoader(URL[] urls, ClassLoader parent) {
        super(urls, parent);
    }

    /**
     * A loader over {@code sdk} (the protocol's and core's classes: directories or jars) and the benchmarks' own
     * classes.
     */
    static SideLoader over(List<Path> sdk) {
        List<URL> urls = new ArrayList<>();
        try {
            for (Path p : sdk) {
                urls.add(p.toUri().toURL());
            }
            urls.add(location(SideLoader.class).toUri().toURL());
        } catch (MalformedURLException e) {
            throw new IllegalStateException(e);
        }
        return new SideLoader(urls.toArray(URL[]::new), SideLoader.class.getClassLoader());
    }

    /** This checkout's protocol and core, where the benchmarks' loader found them. */
    static List<Path> thisCheckout() {
        return List.of(location(dev.codexclient.protocol.ProtocolJson.class),
                location(dev.codexclient.internal.rpc.JsonWireCodec.class));
    }

    /** A class path as {@code java} takes it: entries separated by {@link File#pathSeparator}. */
    static List<Path> parse(String classPath) {
        List<Path> out = new ArrayList<>();
        for (String entry : classPath.split(File.pathSeparator)) {
            if (!entry.isBlank()) {
                out.add(Path.of(entry));
            }
        }
        return out;
    }

    private static Path location(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Resources too come from the side's own class path first: the core reads tables of its own. */
    @Override
    public URL getResource(String name) {
        URL own = findResource(name);
        return own != null ? own : super.getResource(name);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (!name.startsWith("dev.codexclient.") || name.contains(".jmh_generated.")) {
            return super.loadClass(name, resolve);
        }
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null) {
                try {
                    c = findClass(name);
                } catch (ClassNotFoundException notOurs) {
                    return super.loadClass(name, resolve);
                }
            }
            if (resolve) {
                resolveClass(c);
            }
            return c;
        }
    }
}
