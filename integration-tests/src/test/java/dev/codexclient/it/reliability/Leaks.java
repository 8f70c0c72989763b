package dev.codexclient.it.reliability;

import dev.codexclient.it.SharedThreadCeilings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What a fault case may leave behind: {@code codex-} threads, pipes and sockets (open file descriptors) and child
 * processes. A baseline is taken before the case; afterwards everything new must be gone.
 */
final class Leaks {
    private static final Path FDS = Path.of("/proc/self/fd");

    private final Set<Long> threads;
    private final Map<String, String> descriptors;
    private final Set<Long> children;

    private Leaks(Set<Long> threads, Map<String, String> descriptors, Set<Long> children) {
        this.threads = threads;
        this.descriptors = descriptors;
        this.children = children;
    }

    static Leaks baseline() {
        return new Leaks(codexThreads().keySet(), descriptors(), descendants());
    }

    /**
     * Waits (boundedly) until the process is back to this baseline; returns "none" or what is still left over.
     * Threads and processes may take a moment to end after a close returned, hence the polling.
     */
    String awaitBaseline(Duration patience) {
        long deadline = System.nanoTime() + patience.toNanos();
        String leaks;
        do {
            leaks = leaksNow();
            if (leaks.equals("none")) {
                return leaks;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return leaks;
            }
        } while (System.nanoTime() < deadline);
        return leaks;
    }

    private String leaksNow() {
        List<String> left = new ArrayList<>();
        codexThreads().forEach((id, name) -> {
            if (!threads.contains(id)) {
                left.add("thread " + name);
            }
        });
        descriptors().forEach((fd, target) -> {
            if (!target.equals(descriptors.get(fd))) {
                left.add("fd " + fd + " -> " + target);
            }
        });
        descendants().forEach(pid -> {
            if (!children.contains(pid)) {
                left.add("process " + pid + " " + ProcessHandle.of(pid).flatMap(h -> h.info().command())
                        .orElse("?"));
            }
        });
        return left.isEmpty() ? "none" : String.join(", ", left);
    }

    /**
     * Live threads whose name starts with {@code codex-}: the client's, the transport's, the fake's; not the pooled
     * ones all clients and fakes share ({@code codex-shared-}), which must be within their ceilings.
     */
    static Map<Long, String> codexThreads() {
        SharedThreadCeilings.assertWithinCeilings();
        Map<Long, String> result = new HashMap<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().startsWith("codex-") && !SharedThreadCeilings.isShared(t.getName())) {
                result.put(t.getId(), t.getName());
            }
        }
        return result;
    }

    /**
     * Open descriptors that are pipes, sockets or anonymous inodes (what a transport or child opens). Regular files
     * are left out: the JVM opens jars lazily while classes load, which is not a leak of the code under test.
     */
    static Map<String, String> descriptors() {
        Map<String, String> result = new HashMap<>();
        try (Stream<Path> fds = Files.list(FDS)) {
            for (Path fd : fds.collect(Collectors.toList())) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("pipe:") || target.startsWith("socket:")
                            || target.startsWith("anon_inode:")) {
                        result.put(fd.getFileName().toString(), target);
                    }
                } catch (IOException gone) {
                    // closed while listing (the listing's own descriptor, for one)
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list " + FDS, e);
        }
        return result;
    }

    static Set<Long> descendants() {
        try (Stream<ProcessHandle> s = ProcessHandle.current().descendants()) {
            return s.filter(ProcessHandle::isAlive).map(ProcessHandle::pid).collect(Collectors.toSet());
        }
    }
}
