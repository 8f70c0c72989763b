package dev.codexclient.it.transport;

import dev.codexclient.CodexClientBuilder;
import dev.codexclient.CodexClient;
import dev.codexclient.it.RealCodexFixture;
import dev.codexclient.protocol.AskForApproval;
import dev.codexclient.protocol.SandboxMode;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.testkit.ListenAddress;
import dev.codexclient.testkit.ScriptedModelServer;
import dev.codexclient.transport.ReadinessProbe;
import dev.codexclient.transport.Transport;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real {@code codex app-server --listen ...} process for transport tests: private HOME and CODEX_HOME (the latter
 * pointing at a scripted model), a private workspace, its output in a log file, and everything removed on close,
 * including the socket codex publishes under {@code /tmp/codex-daemon-<uid>/}.
 */
final class ListeningCodex implements AutoCloseable {

    final ScriptedModelServer model;
    final Path home;
    final Path workspace;
    final Path sockets;
    final Path log;
    final Process process;
    private volatile URI uri;
    private final Path socket;

    private ListeningCodex(ScriptedModelServer model, Path home, Path workspace, Path sockets, List<String> listen,
                           URI uri, Path socket) throws IOException {
        this.model = model;
        this.home = home;
        this.workspace = workspace;
        this.sockets = sockets;
        this.uri = uri;
        this.socket = socket;
        this.log = home.resolve("app-server.log");
        List<String> command = new ArrayList<>(List.of(RealCodexFixture.binary().toString(), "app-server"));
        command.addAll(listen);
        ProcessBuilder pb = new ProcessBuilder(command).directory(workspace.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        model.applyEnvironment(pb.environment());
        pb.environment().put("HOME", home.toString());
        // Warnings too (codex prints only errors by default): "disconnecting slow connection" is one.
        pb.environment().put("RUST_LOG", "warn");
        this.process = pb.start();
    }

    /**
     * codex listening on {@code ws://127.0.0.1:PORT}, ready (its {@code /readyz} answers 200). codex picks the port
     * ({@code :0}) and prints it: a port picked here and freed before codex binds it can be taken meanwhile (by the
     * scripted model server started next, or by a parallel test), and codex then never gets ready.
     */
    static ListeningCodex webSocket(String... extraArgs) throws IOException {
        List<String> listen = new ArrayList<>(List.of("--listen", "ws://127.0.0.1:0"));
        listen.addAll(List.of(extraArgs));
        ListeningCodex codex = create(listen, null, null);
        try {
            codex.uri = codex.awaitListenAddress(Duration.ofSeconds(30));
            ReadinessProbe.of(codex.uri).awaitReady(Duration.ofSeconds(30));
        } catch (RuntimeException | InterruptedException e) {
            String output = codex.output();
            codex.close();
            throw new AssertionError("codex did not get ready; its output:\n" + output, e);
        }
        return codex;
    }

    /** The address codex printed ("listening on: ws://127.0.0.1:PORT"). */
    private URI awaitListenAddress(Duration timeout) throws IOException, InterruptedException {
        return ListenAddress.await(log, process, timeout);
    }

    /** codex listening on {@code unix://<temp dir>/codex.sock}, ready (the socket exists). */
    static ListeningCodex unixSocket(String... extraArgs) throws IOException {
        Path sockets = Files.createTempDirectory("codex-sock-");
        Path socket = sockets.resolve("codex.sock");
        List<String> listen = new ArrayList<>(List.of("--listen", "unix://" + socket));
        listen.addAll(List.of(extraArgs));
        ListeningCodex codex;
        // Watch before starting, so that the socket's creation cannot be missed.
        try (WatchService watcher = sockets.getFileSystem().newWatchService()) {
            sockets.register(watcher, StandardWatchEventKinds.ENTRY_CREATE);
            codex = create(listen, null, sockets);
            try {
                awaitFile(watcher, socket, codex.process, Duration.ofSeconds(30));
            } catch (RuntimeException | InterruptedException e) {
                String output = codex.output();
                codex.close();
                throw new AssertionError("codex did not create " + socket + "; its output:\n" + output, e);
            }
        }
        return codex;
    }

    private static ListeningCodex create(List<String> listen, URI uri, Path sockets) throws IOException {
        ScriptedModelServer model = ScriptedModelServer.start();
        Path home = Files.createTempDirectory("codex-user-home-");
        Path workspace = Files.createTempDirectory("codex-ws-");
        Path socket = sockets == null ? null : sockets.resolve("codex.sock");
        return new ListeningCodex(model, home, workspace, sockets, listen, uri, socket);
    }

    /** Waits for {@code file} to appear, by file-system events rather than by polling. */
    private static void awaitFile(WatchService watcher, Path file, Process process, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!Files.exists(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            if (!process.isAlive()) {
                throw new IllegalStateException("codex exited with " + process.exitValue());
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new IllegalStateException("no socket within " + timeout);
            }
            try {
                // A bounded wait, so a codex that dies before creating the socket is noticed.
                WatchKey key = watcher.poll(Math.min(left, TimeUnit.MILLISECONDS.toNanos(500)), TimeUnit.NANOSECONDS);
                if (key != null) {
                    key.pollEvents();
                    key.reset();
                }
            } catch (ClosedWatchServiceException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    URI uri() {
        return uri;
    }

    Path socket() {
        return socket;
    }

    /** A client over {@code transport} that identifies itself like the other real-codex tests. */
    CodexClientBuilder clientBuilder(Transport transport) {
        return CodexClient.builder().transport(transport)
                .clientInfo("codex-client-it", "codex-client integration tests", "0")
                .requestTimeout(Duration.ofSeconds(30))
                .interruptGracePeriod(Duration.ofSeconds(10));
    }

    /** Thread params: approvals asked for everything that writes, writes confined to the workspace. */
    ThreadStartParams.Builder threadParams() {
        return ThreadStartParams.builder().cwd(workspace.toString())
                .approvalPolicy(AskForApproval.Simple.UNTRUSTED).sandbox(SandboxMode.WORKSPACE_WRITE);
    }

    /** What codex wrote to stdout and stderr so far. */
    String output() {
        try {
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    /**
     * Waits until codex's output contains {@code text}, woken by file-system events on its log rather than by
     * polling.
     *
     * @return whether it appeared within {@code timeout}
     */
    boolean awaitOutput(String text, Duration timeout) throws IOException, InterruptedException {
        try (WatchService watcher = home.getFileSystem().newWatchService()) {
            home.register(watcher, StandardWatchEventKinds.ENTRY_MODIFY);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!output().contains(text)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                WatchKey key = watcher.poll(left, TimeUnit.NANOSECONDS);
                if (key != null) {
                    key.pollEvents();
                    key.reset();
                }
            }
            return true;
        }
    }

    /** The native codex binary (the npm launcher runs it as a child), or the launcher itself. */
    ProcessHandle nativeServer() {
        return process.toHandle().descendants()
                .filter(p -> p.info().command().map(c -> !c.endsWith("/node")).orElse(false))
                .filter(p -> p.info().command().map(c -> c.contains("codex")).orElse(false))
                .findFirst().orElse(process.toHandle());
    }

    /** SIGKILL to the native server: no close frame, no goodbye. */
    void kill() throws InterruptedException {
        ProcessHandle server = nativeServer();
        server.destroyForcibly();
        server.onExit().orTimeout(10, TimeUnit.SECONDS).join();
    }

    @Override
    public void close() {
        Path published = null;
        if (socket != null) {
            try {
                published = Files.isSymbolicLink(socket) ? Files.readSymbolicLink(socket) : null;
            } catch (IOException e) {
                // nothing published
            }
        }
        List<ProcessHandle> tree = new ArrayList<>();
        process.toHandle().descendants().forEach(tree::add);
        tree.add(process.toHandle());
        for (ProcessHandle p : tree) {
            p.destroy();
        }
        for (ProcessHandle p : tree) {
            try {
                p.onExit().get(5, TimeUnit.SECONDS);
            } catch (Exception e) {
                p.destroyForcibly();
            }
        }
        model.close();
        if (published != null && published.toString().startsWith("/tmp/codex-daemon-")) {
            // A killed codex leaves the socket it published in the shared directory behind.
            deleteQuietly(published);
            deleteQuietly(Path.of(published + ".lock"));
        }
        deleteTree(home);
        deleteTree(workspace);
        if (sockets != null) {
            deleteTree(sockets);
        }
    }

    static void deleteTree(Path dir) {
        if (dir == null || !Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(ListeningCodex::deleteQuietly);
        } catch (IOException e) {
            // best effort: temporary directories
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            // best effort
        }
    }

}
