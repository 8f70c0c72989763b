package dev.codexclient.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The child processes of a run: JVMs on this run's class path, interpreters, and their {@code RESULT} lines. */
final class Children {
    static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    static final String CLASSPATH = System.getProperty("java.class.path");

    private Children() {
    }

    /** A {@link BenchServer} child with these arguments. */
    static List<String> benchServer(String... args) {
        List<String> command = new ArrayList<>(List.of(JAVA, "-cp", CLASSPATH, BenchServer.class.getName()));
        command.addAll(List.of(args));
        return command;
    }

    /** Runs {@code command} to its end and returns the key=value pairs of its last {@code RESULT} line. */
    static Map<String, String> runForResult(List<String> command, Duration timeout)
            throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String resultLine = null;
        try (BufferedReader r = p.inputReader(StandardCharsets.UTF_8)) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.startsWith("RESULT ")) {
                    resultLine = line;
                }
            }
        }
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(command.get(0) + " did not finish within " + timeout);
        }
        if (resultLine == null) {
            throw new IllegalStateException(String.join(" ", command.subList(0, 2)) + " printed no result (exit "
                    + p.exitValue() + ")");
        }
        return parseResult(resultLine);
    }

    static Map<String, String> parseResult(String line) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String part : line.substring("RESULT ".length()).trim().split(" ")) {
            int eq = part.indexOf('=');
            out.put(part.substring(0, eq), part.substring(eq + 1));
        }
        return out;
    }

    static boolean available(String interpreter) {
        return !version(interpreter, "--version").equals("unavailable");
    }

    static String version(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                return "unavailable";
            }
            return out;
        } catch (IOException | InterruptedException e) {
            return "unavailable";
        }
    }
}
