package dev.codexclient.benchmarks;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.CodexClient;
import dev.codexclient.protocol.ProtocolJson;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import org.slf4j.LoggerFactory;
import org.slf4j.simple.SimpleLogger;

/**
 * Launches the fresh JVMs of figure 4 ({@link ColdStart}), with or without an AppCDS archive, on a class path of
 * jars only, laid out as an application deploys the SDK: ColdStart's own classes, the SDK, Jackson and SLF4J.
 *
 * <p>Jars only, because class data sharing archives nothing from directories: in JDK 17 a non-empty directory on
 * the class path disables the archive dump, and a reactor or test run has {@code target/classes} directories on
 * its class path. Those are packed into jars in the work directory first.
 */
final class ColdStartJvms {
    /** The side of the comparison a JVM runs. */
    enum Side {
        SDK(List.of()), BASELINE(List.of("--baseline"));

        private final List<String> args;

        Side(List<String> args) {
            this.args = args;
        }
    }

    /**
     * One JVM: wall time from launch to its "initialized" line, its own uptime and loaded classes there, and its
     * uptime and loaded classes at the first typed delta.
     */
    record Sample(long wallNanos, long uptimeMs, int classes, long deltaUptimeMs, int deltaClasses) {
    }

    /**
     * Class-loading counts of one JVM run with class-load logging, at "initialized" unless named otherwise:
     * classes from the application's dynamic archive, from the JDK's default archive, and all. SDK classes are
     * those of {@code dev.codexclient.*}, the protocol's included; SLF4J's are those of {@code org.slf4j.*} (the
     * API's and the binding's: a start that logs nothing loads none).
     */
    record Loading(int protocolAtInit, int protocolAfterDelta, int fromArchiveAtInit, int fromJdkArchiveAtInit,
                   int classesAtInit, int sdkAtInit, int sdkAfterDelta, int slf4jAtInit) {
    }

    private static final long TIMEOUT_SECONDS = 120;

    private final String java;
    private final Path work;
    private final String classpath;

    private ColdStartJvms(String java, Path work, String classpath) {
        this.java = java;
        this.work = work;
        this.classpath = classpath;
    }

    /** Lays out the jar class path in {@code work} (packing class directories into jars). */
    static ColdStartJvms create(String java, Path work) throws IOException {
        Files.createDirectories(work);
        List<String> entries = new ArrayList<>();
        for (Class<?> c : List.of(ColdStart.class, CodexClient.class, ProtocolJson.class, ObjectMapper.class,
                JsonFactory.class, JsonProperty.class, LoggerFactory.class, SimpleLogger.class)) {
            Path location = location(c);
            String entry = (Files.isDirectory(location)
                    ? pack(location, work.resolve("classes-" + entries.size() + ".jar")) : location).toString();
            if (!entries.contains(entry)) {
                entries.add(entry);
            }
        }
        return new ColdStartJvms(java, work, String.join(File.pathSeparator, entries));
    }

    /** Where a class was loaded from: a jar or a class directory. */
    static Path location(Class<?> c) {
        try {
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot locate " + c.getName(), e);
        }
    }

    private static Path pack(Path directory, Path jar) throws IOException {
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out);
             Stream<Path> files = Files.walk(directory)) {
            for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                j.putNextEntry(new JarEntry(directory.relativize(f).toString().replace(File.separatorChar, '/')));
                Files.copy(f, j);
                j.closeEntry();
            }
        }
        return jar;
    }

    /**
     * The training run of one side: runs it once with {@code -XX:ArchiveClassesAtExit}, which writes a dynamic
     * archive of every class the run loaded when it exits.
     *
     * @return the archive, or empty when this JVM could not write one (then the reason is printed)
     */
    Optional<Path> train(Side side) throws IOException, InterruptedException {
        Path archive = work.resolve(side.name().toLowerCase(Locale.ROOT) + ".jsa");
        Files.deleteIfExists(archive);
        List<String> output;
        try {
            output = run(side, List.of("-XX:ArchiveClassesAtExit=" + archive), false).output();
        } catch (IllegalStateException e) {
            // A JVM without class data sharing rejects the option or fails the dump: the figure says "not run".
            System.out.println("[bench] the CDS training run failed: " + e.getMessage());
            return Optional.empty();
        }
        if (Files.isRegularFile(archive) && Files.size(archive) > 0) {
            return Optional.of(archive);
        }
        System.out.println("[bench] the CDS training run wrote no archive; it printed: " + output);
        return Optional.empty();
    }

    /** One timed run of a side, with the archive when one is given. */
    Sample sample(Side side, Optional<Path> archive) throws IOException, InterruptedException {
        List<String> options = archive.map(a -> List.of("-XX:SharedArchiveFile=" + a)).orElse(List.of());
        return run(side, options, false).sample();
    }

    /** One run with class-load logging: which classes loaded by "initialized" and after the delta, and from where. */
    Loading loading(Side side, Optional<Path> archive) throws IOException, InterruptedException {
        List<String> options = new ArrayList<>(List.of("-Xlog:class+load=info:stdout"));
        archive.ifPresent(a -> options.add("-XX:SharedArchiveFile=" + a));
        return run(side, options, true).loading();
    }

    /** How many classes the protocol jar (or directory) holds. */
    static int protocolClassCount() throws IOException {
        Path path = location(ProtocolJson.class);
        if (Files.isDirectory(path)) {
            try (Stream<Path> s = Files.walk(path.resolve("dev/codexclient/protocol"))) {
                return (int) s.filter(f -> f.toString().endsWith(".class")).count();
            }
        }
        try (JarFile jar = new JarFile(path.toFile())) {
            return (int) jar.stream().filter(e -> e.getName().startsWith("dev/codexclient/protocol/")
                    && e.getName().endsWith(".class")).count();
        }
    }

    private record Outcome(Sample sample, Loading loading, List<String> output) {
    }

    private Outcome run(Side side, List<String> options, boolean countLoading)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(options);
        command.addAll(List.of("-cp", classpath, ColdStart.class.getName()));
        command.addAll(side.args);
        long start = System.nanoTime();
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        // A JVM that hangs would block the reads below forever: kill it after the timeout (a no-op once it ended).
        CompletableFuture.delayedExecutor(TIMEOUT_SECONDS, TimeUnit.SECONDS).execute(p::destroyForcibly);
        long wall = 0;
        long uptime = -1;
        int classes = -1;
        long deltaUptime = -1;
        int deltaClasses = -1;
        int protocol = 0;
        int sdk = 0;
        int sdkAtInit = -1;
        int sdkAfterDelta = -1;
        int protocolAtInit = -1;
        int protocolAfterDelta = -1;
        int fromArchive = 0;
        int fromArchiveAtInit = -1;
        int fromJdkArchive = 0;
        int fromJdkArchiveAtInit = -1;
        int loaded = 0;
        int loadedAtInit = -1;
        int slf4j = 0;
        int slf4jAtInit = -1;
        List<String> output = new ArrayList<>();
        try (BufferedReader r = p.inputReader(StandardCharsets.UTF_8)) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.startsWith("RESULT phase=initialized")) {
                    wall = System.nanoTime() - start;
                    uptime = Long.parseLong(value(line, "uptimeMs"));
                    classes = Integer.parseInt(value(line, "classes"));
                    protocolAtInit = protocol;
                    sdkAtInit = sdk;
                    fromArchiveAtInit = fromArchive;
                    fromJdkArchiveAtInit = fromJdkArchive;
                    loadedAtInit = loaded;
                    slf4jAtInit = slf4j;
                } else if (line.startsWith("RESULT phase=delta")) {
                    deltaUptime = Long.parseLong(value(line, "uptimeMs"));
                    deltaClasses = Integer.parseInt(value(line, "classes"));
                    protocolAfterDelta = protocol;
                    sdkAfterDelta = sdk;
                } else if (countLoading && line.contains("[class,load]")) {
                    loaded++;
                    // The benchmark's own classes (ColdStart, CannedServer, Recording) are not the SDK's.
                    if (line.contains("] dev.codexclient.") && !line.contains("] dev.codexclient.benchmarks.")) {
                        sdk++;
                        if (line.contains("] dev.codexclient.protocol.")) {
                            protocol++;
                        }
                    }
                    if (line.contains("] org.slf4j.")) {
                        slf4j++;
                    }
                    if (line.endsWith("source: shared objects file (top)")) {
                        fromArchive++;
                    } else if (line.endsWith("source: shared objects file")) {
                        fromJdkArchive++;
                    }
                } else if (output.size() < 20) {
                    output.add(line);
                }
            }
        }
        if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
        if (p.isAlive() || p.exitValue() != 0 || uptime < 0) {
            throw new IllegalStateException("a cold-start JVM failed or did not finish within " + TIMEOUT_SECONDS
                    + " s (exit " + (p.isAlive() ? "none" : p.exitValue()) + "): " + command + "; it printed: "
                    + output);
        }
        return new Outcome(new Sample(wall, uptime, classes, deltaUptime, deltaClasses),
                new Loading(protocolAtInit, protocolAfterDelta, fromArchiveAtInit, fromJdkArchiveAtInit,
                        loadedAtInit, sdkAtInit, sdkAfterDelta, slf4jAtInit), List.copyOf(output));
    }

    private static String value(String line, String key) {
        for (String part : line.split(" ")) {
            if (part.startsWith(key + "=")) {
                return part.substring(key.length() + 1);
            }
        }
        throw new IllegalStateException("no " + key + " in " + line);
    }
}
