package dev.codexclient.approvals.boot;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A second instance of the service in a JVM of its own, as a deployment runs it: the test application's
 * {@code main} on this JVM's class path, with the properties given, its output in a file under {@code target/}.
 */
public final class Instances {
    private Instances() {
    }

    /** A running instance: its process and its port. */
    public record Instance(Process process, int port, Path log) implements AutoCloseable {
        @Override
        public void close() {
            process.descendants().forEach(ProcessHandle::destroy);
            process.destroy();
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
    }

    public static Instance start(String name, String... properties) throws IOException, InterruptedException {
        Path dir = Files.createDirectories(Path.of("target", "instances").toAbsolutePath());
        Path portFile = dir.resolve(name + "-" + System.nanoTime() + ".port");
        Path log = dir.resolve(name + "-" + System.nanoTime() + ".log");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx512m", "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"),
                "-cp", System.getProperty("java.class.path"),
                InboxTestApplication.class.getName(), "--server.port=0", "--port-file=" + portFile));
        for (String p : properties) {
            command.add("--" + p);
        }
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (!Files.exists(portFile)) {
            if (!process.isAlive()) {
                throw new IllegalStateException("instance " + name + " exited with " + process.exitValue() + ":\n"
                        + Files.readString(log));
            }
            if (System.nanoTime() > deadline) {
                process.destroyForcibly();
                throw new IllegalStateException("instance " + name + " did not start within 180 s:\n"
                        + Files.readString(log));
            }
            // Waiting for another JVM to write a file: its exit would end the wait sooner.
            process.waitFor(100, TimeUnit.MILLISECONDS);
        }
        return new Instance(process, Integer.parseInt(Files.readString(portFile).strip()), log);
    }
}
