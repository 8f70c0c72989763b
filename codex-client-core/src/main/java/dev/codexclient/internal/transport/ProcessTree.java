package dev.codexclient.internal.transport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Ends a child process together with everything it spawned.
 *
 * <p>A server has children of its own: the commands of its turns, and the native binary when the npm {@code codex}
 * launcher (a node script) runs it, which the transport does only when it cannot run the binary itself
 * ({@link NpmLauncher}). Killing only the server would orphan them, and an orphaned binary keeps our pipes open and
 * runs on. Descendants can only be found while their parent lives (orphans are re-parented), so callers take a
 * snapshot before the parent goes away.
 */
public final class ProcessTree {

    private ProcessTree() {
    }

    /** The live descendants of {@code process}, deepest first; empty once it has exited. */
    public static List<ProcessHandle> descendants(ProcessHandle process) {
        List<ProcessHandle> all = new ArrayList<>();
        try {
            process.descendants().forEach(all::add);
        } catch (RuntimeException e) {
            // Some platforms refuse to enumerate; a best-effort snapshot is all that is possible then.
            return List.of();
        }
        java.util.Collections.reverse(all);
        return all;
    }

    /** Adds handles from {@code more} that {@code into} lacks, keeping order. */
    public static List<ProcessHandle> union(List<ProcessHandle> into, List<ProcessHandle> more) {
        Map<Long, ProcessHandle> byPid = new LinkedHashMap<>();
        for (ProcessHandle h : into) {
            byPid.put(h.pid(), h);
        }
        for (ProcessHandle h : more) {
            byPid.putIfAbsent(h.pid(), h);
        }
        return new ArrayList<>(byPid.values());
    }

    /**
     * Asks every live handle to terminate, waits up to {@code patience}, then kills whatever is left and waits up
     * to {@code patience} again.
     *
     * @return true when none of them is alive afterwards
     */
    public static boolean terminate(List<ProcessHandle> handles, Duration patience) {
        List<ProcessHandle> alive = alive(handles);
        if (alive.isEmpty()) {
            return true;
        }
        for (ProcessHandle h : alive) {
            h.destroy();
        }
        if (awaitExit(alive, patience)) {
            return true;
        }
        List<ProcessHandle> stubborn = alive(alive);
        for (ProcessHandle h : stubborn) {
            h.destroyForcibly();
        }
        return awaitExit(stubborn, patience);
    }

    /**
     * Whether {@code process} still runs. Unlike {@link ProcessHandle#isAlive()}, a zombie (exited, not yet reaped
     * by its parent) counts as ended: in containers whose init does not reap, a killed orphan stays a zombie.
     */
    public static boolean isRunning(ProcessHandle process) {
        if (!process.isAlive()) {
            return false;
        }
        Path stat = Path.of("/proc", Long.toString(process.pid()), "stat");
        try {
            String content = Files.readString(stat);
            int close = content.lastIndexOf(')');
            if (close >= 0 && close + 2 < content.length()) {
                char state = content.charAt(close + 2);
                return state != 'Z' && state != 'X';
            }
            return true;
        } catch (NoSuchFileException e) {
            return !Files.isDirectory(Path.of("/proc/self")) && process.isAlive();
        } catch (IOException | RuntimeException e) {
            return process.isAlive();
        }
    }

    private static List<ProcessHandle> alive(List<ProcessHandle> handles) {
        List<ProcessHandle> alive = new ArrayList<>();
        for (ProcessHandle h : handles) {
            if (isRunning(h)) {
                alive.add(h);
            }
        }
        return alive;
    }

    /**
     * Polls rather than using {@code onExit()}: for processes that are not our direct children the JDK implements
     * that with a back-off that can add seconds to a close.
     */
    private static boolean awaitExit(List<ProcessHandle> handles, Duration patience) {
        long deadline = System.nanoTime() + patience.toNanos();
        while (true) {
            if (alive(handles).isEmpty()) {
                return true;
            }
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return alive(handles).isEmpty();
            }
        }
    }
}
