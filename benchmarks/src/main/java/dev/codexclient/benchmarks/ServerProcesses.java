package dev.codexclient.benchmarks;

import dev.codexclient.CodexClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * Every process the app-servers of figure 8 ran, so that none outlives the figure: the trees of the servers the
 * clients spawned (the {@code node} launcher, the native codex, the commands it runs) as seen while they ran, and
 * any process whose environment points into the figure's directory (each server's {@code CODEX_HOME} and
 * {@code HOME} are there), which also finds a native codex whose launcher died and left it to init.
 */
final class ServerProcesses {
    /** How long a closed server's processes get to end on their own before they are killed and counted. */
    private static final long EXIT_GRACE_SECONDS = 10;

    private final Path root;
    private final Set<ProcessHandle> seen = ConcurrentHashMap.newKeySet();

    /** Tracks the processes of servers whose {@code HOME} lies under {@code root}. */
    ServerProcesses(Path root) {
        this.root = root.toAbsolutePath();
    }

    /** Remembers a process of a server. */
    void seen(ProcessHandle p) {
        seen.add(p);
    }

    /** Remembers the process tree of {@code client}'s server as it is now. */
    void track(CodexClient client) {
        client.serverProcessTree().forEach(this::seen);
    }

    /**
     * Waits for every process remembered or found under the root to end, kills those that do not end within a grace
     * period, and returns how many had to be killed: the processes closing the clients left behind (0 when every
     * close ended its server).
     */
    int sweep() throws InterruptedException {
        // A process both remembered and found under the root counts once.
        Map<Long, ProcessHandle> candidates = new LinkedHashMap<>();
        seen.forEach(p -> candidates.put(p.pid(), p));
        underRoot().forEach(p -> candidates.putIfAbsent(p.pid(), p));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(EXIT_GRACE_SECONDS);
        int left = 0;
        for (ProcessHandle p : candidates.values()) {
            if (!p.isAlive()) {
                continue;
            }
            try {
                p.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
                if (p.isAlive()) {
                    BenchmarkRunner.log("8. scaling: process " + p.pid() + " ("
                            + p.info().commandLine().orElse("?") + ") outlived its client; killing it");
                    left++;
                    p.destroyForcibly();
                }
            }
        }
        seen.removeIf(p -> !p.isAlive());
        return left;
    }

    /** Processes whose environment names a directory under the root (Linux; none elsewhere). */
    private List<ProcessHandle> underRoot() {
        byte[] needle = ("=" + root + "/").getBytes(StandardCharsets.UTF_8);
        List<ProcessHandle> found = new ArrayList<>();
        Path proc = Path.of("/proc");
        if (!Files.isDirectory(proc)) {
            return found;
        }
        long self = ProcessHandle.current().pid();
        try (Stream<Path> entries = Files.list(proc)) {
            for (Path entry : (Iterable<Path>) entries::iterator) {
                String name = entry.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit) || Long.parseLong(name) == self) {
                    continue;
                }
                try {
                    if (contains(Files.readAllBytes(entry.resolve("environ")), needle)) {
                        ProcessHandle.of(Long.parseLong(name)).ifPresent(found::add);
                    }
                } catch (IOException | RuntimeException e) {
                    // gone, or another user's: not ours
                }
            }
        } catch (IOException e) {
            // /proc unreadable: only the remembered processes are checked
        }
        return found;
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
