package dev.codexclient.internal.transport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Ends a child process together with everything it spawned.
 *
 * <p>The npm {@code codex} launcher is a node script that runs the native binary as its own child. Killing only
 * the launcher would orphan the binary, which then keeps our pipes open and runs on. Descendants can only be found
 * while their parent lives (orphans are re-parented), so callers take a snapshot before the parent goes away.
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

    private static List<ProcessHandle> alive(List<ProcessHandle> handles) {
        List<ProcessHandle> alive = new ArrayList<>();
        for (ProcessHandle h : handles) {
            if (h.isAlive()) {
                alive.add(h);
            }
        }
        return alive;
    }

    private static boolean awaitExit(List<ProcessHandle> handles, Duration patience) {
        long deadline = System.nanoTime() + patience.toNanos();
        for (ProcessHandle h : handles) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            CompletableFuture<ProcessHandle> exit = h.onExit();
            try {
                exit.get(left, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                break;
            } catch (ExecutionException e) {
                // onExit does not fail; treat it like an exit.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return alive(handles).isEmpty();
    }
}
