package dev.codexclient.drift.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Where schema bundles come from: the one this SDK was generated from (shipped in this artifact, {@code codex-client-schema-drift}),
 * a file, or a codex executable.
 *
 * <p>Exporting the app-server schema of a codex executable runs {@code codex --version} and
 * {@code codex app-server generate-json-schema --experimental --out DIR} (the flags of every version from 0.98.0 to
 * 0.169.0; a codex that rejects {@code --experimental} is asked without it).
 *
 * <p>codex runs with a fresh, empty {@code HOME} and {@code CODEX_HOME} in a temporary directory, removed
 * afterwards, so the export neither reads nor writes the user's configuration.
 */
public final class SchemaSources {
    /** The bundle {@code generate-json-schema} writes next to the per-type files. */
    public static final String BUNDLE = "codex_app_server_protocol.schemas.json";
    private static final String PINNED = "/META-INF/codex-client/schema/experimental/" + BUNDLE;

    /**
     * What the export produced.
     *
     * @param bundle        the schema bundle
     * @param versionOutput what {@code codex --version} printed, stripped
     * @param experimental  whether the schema includes experimental methods and fields
     */
    public record Exported(JsonNode bundle, String versionOutput, boolean experimental) {
    }

    private SchemaSources() {
    }

    /**
     * Runs {@code codex} to export its schema.
     *
     * @throws IllegalStateException when codex cannot be run, fails, times out or writes no bundle
     */
    public static Exported export(Path codex, Duration timeout) {
        Path work;
        try {
            work = Files.createTempDirectory("codex-schema-drift-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary directory", e);
        }
        try {
            Path home = Files.createDirectories(work.resolve("home"));
            Path out = work.resolve("schema");
            Result version = run(List.of(codex.toString(), "--version"), home, work, timeout);
            if (version.exit() != 0) {
                throw new IllegalStateException(codex + " --version failed with exit code " + version.exit() + ": "
                        + tail(version.output()));
            }
            List<String> command = new ArrayList<>(List.of(codex.toString(), "app-server", "generate-json-schema",
                    "--experimental", "--out", out.toString()));
            Result generated = run(command, home, work, timeout);
            boolean experimental = true;
            if (generated.exit() != 0 && generated.output().contains("--experimental")) {
                // A codex from before the flag: its only schema is the whole one.
                command.remove("--experimental");
                experimental = false;
                generated = run(command, home, work, timeout);
            }
            if (generated.exit() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed with exit code "
                        + generated.exit() + ": " + tail(generated.output()));
            }
            Path bundle = out.resolve(BUNDLE);
            if (!Files.isRegularFile(bundle)) {
                throw new IllegalStateException(String.join(" ", command) + " wrote no " + BUNDLE + " into " + out);
            }
            return new Exported(new ObjectMapper().readTree(bundle.toFile()), version.output().strip(), experimental);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot export the schema of " + codex + ": " + e.getMessage(), e);
        } finally {
            delete(work);
        }
    }

    /**
     * The schema this SDK was generated from, as this artifact ships it.
     *
     * @throws IllegalStateException when the jar lacks it
     */
    public static JsonNode pinned() {
        try (InputStream in = SchemaSources.class.getResourceAsStream(PINNED)) {
            if (in == null) {
                throw new IllegalStateException("codex-client-schema-drift lacks " + PINNED
                        + " (a repackaged jar that dropped its resources?)");
            }
            return new ObjectMapper().readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + PINNED, e);
        }
    }

    /**
     * Reads a schema exported before: the bundle file itself, or the directory {@code generate-json-schema}
     * wrote.
     *
     * @throws UncheckedIOException when it cannot be read
     */
    public static JsonNode read(Path schema) {
        Path file = Files.isDirectory(schema) ? schema.resolve(BUNDLE) : schema;
        try {
            return new ObjectMapper().readTree(file.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the schema " + file + ": " + e.getMessage(), e);
        }
    }

    private record Result(int exit, String output) {
    }

    private static Result run(List<String> command, Path home, Path work, Duration timeout) throws IOException {
        Path log = Files.createTempFile(work, "codex-", ".log");
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> env = pb.environment();
        env.put("HOME", home.toString());
        env.put("CODEX_HOME", home.toString());
        Process process;
        try {
            process = pb.start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + command.get(0) + ": " + e.getMessage(), e);
        }
        try {
            process.getOutputStream().close();
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish within " + timeout);
            }
        } catch (InterruptedException e) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + command.get(0), e);
        }
        return new Result(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    }

    private static String tail(String output) {
        String s = output.strip();
        return s.length() <= 2_000 ? s : "…" + s.substring(s.length() - 2_000);
    }

    private static void delete(Path dir) {
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException exc) throws IOException {
                    Files.deleteIfExists(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException ignored) {
            // A temporary directory: what is left goes with the next clean-up of the system's temp space.
        }
    }
}
