package dev.codexclient.testkit;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Where a {@code codex app-server --listen ws://127.0.0.1:0} listens: codex picks the port and prints it. A port a
 * test picks and frees before codex binds it can be taken meanwhile (by a scripted model server started next, or a
 * parallel test), and codex then never gets ready.
 * <pre>{@code
 * Process codex = new ProcessBuilder(codexBinary, "app-server", "--listen", "ws://127.0.0.1:0")
 *         .redirectErrorStream(true).redirectOutput(log.toFile()).start();
 * URI uri = ListenAddress.await(log, codex, Duration.ofSeconds(30));   // ws://127.0.0.1:PORT
 * }</pre>
 */
public final class ListenAddress {
    private ListenAddress() {
    }

    /**
     * The address a {@code --listen ws://127.0.0.1:0} codex printed to {@code log} ("listening on:
     * ws://127.0.0.1:PORT"), waited for by file-system events on the log's directory.
     *
     * @param log     the file the process's output (stderr included) is redirected to
     * @param process the codex process
     * @param timeout how long to wait for the line
     * @return the address codex listens on
     * @throws IOException when the log cannot be read
     * @throws InterruptedException when interrupted while waiting
     * @throws IllegalStateException when codex exits before it prints its address, or does not within the timeout
     */
    public static URI await(Path log, Process process, Duration timeout) throws IOException, InterruptedException {
        String marker = "listening on: ";
        Path dir = log.getParent();
        try (WatchService watcher = dir.getFileSystem().newWatchService()) {
            dir.register(watcher, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                String out = Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
                int at = out.indexOf(marker);
                int end = at < 0 ? -1 : out.indexOf('\n', at);
                if (end >= 0) {
                    return URI.create(out.substring(at + marker.length(), end).strip());
                }
                if (!process.isAlive()) {
                    throw new IllegalStateException("codex exited with " + process.exitValue()
                            + " before it printed its address");
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IllegalStateException("codex printed no listen address within " + timeout);
                }
                // Bounded, so that a codex that dies without writing is noticed.
                WatchKey key = watcher.poll(Math.min(left, TimeUnit.MILLISECONDS.toNanos(500)), TimeUnit.NANOSECONDS);
                if (key != null) {
                    key.pollEvents();
                    key.reset();
                }
            }
        }
    }
}
