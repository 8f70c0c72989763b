package dev.codexclient.internal.transport;

import dev.codexclient.errors.CodexTransportException;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Finds the executable to spawn, so that a missing or unusable binary fails with a message that says how to fix it
 * instead of the JDK's bare "error=2, No such file or directory".
 *
 * <p>The lookup uses the child's effective {@code PATH} (after environment changes), which is what a user who
 * sets {@code PATH} on the builder expects; the JDK itself would search the parent's.
 */
public final class ExecutableResolver {

    private static final boolean WINDOWS =
            System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");

    private ExecutableResolver() {
    }

    /**
     * @param executable  a bare name searched on {@code PATH}, or a path
     * @param environment the child's environment
     * @param howToFix    a sentence telling the user how to provide the binary
     * @return the absolute path of an executable regular file
     * @throws CodexTransportException when there is none
     */
    public static Path resolve(String executable, Map<String, String> environment, String howToFix) {
        if (executable.isBlank()) {
            throw new CodexTransportException("The executable to start is blank. " + howToFix);
        }
        boolean isPath = executable.indexOf('/') >= 0 || executable.indexOf(File.separatorChar) >= 0;
        if (isPath) {
            Path path;
            try {
                path = Path.of(executable).toAbsolutePath();
            } catch (InvalidPathException e) {
                throw new CodexTransportException("Invalid executable path '" + executable + "'. " + howToFix, e);
            }
            if (!Files.exists(path)) {
                throw new CodexTransportException("Executable '" + path + "' does not exist. " + howToFix);
            }
            check(path, howToFix);
            return path;
        }
        String pathVariable = environment.getOrDefault("PATH", WINDOWS ? environment.getOrDefault("Path", "") : "");
        List<String> searched = new ArrayList<>();
        for (String dir : pathVariable.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            searched.add(dir);
            for (String name : candidates(executable)) {
                Path candidate;
                try {
                    candidate = Path.of(dir, name);
                } catch (InvalidPathException e) {
                    continue;
                }
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return candidate.toAbsolutePath();
                }
            }
        }
        throw new CodexTransportException("Executable '" + executable + "' was not found on PATH"
                + (searched.isEmpty() ? " (PATH is empty)" : " (searched " + String.join(File.pathSeparator, searched)
                + ")") + ". " + howToFix);
    }

    private static void check(Path path, String howToFix) {
        if (Files.isDirectory(path)) {
            throw new CodexTransportException("Executable '" + path + "' is a directory. " + howToFix);
        }
        if (!Files.isExecutable(path)) {
            throw new CodexTransportException("'" + path + "' is not executable (check its permissions, e.g. "
                    + "chmod +x). " + howToFix);
        }
    }

    private static List<String> candidates(String name) {
        if (!WINDOWS || name.contains(".")) {
            return List.of(name);
        }
        return List.of(name + ".exe", name + ".cmd", name + ".bat", name);
    }
}
