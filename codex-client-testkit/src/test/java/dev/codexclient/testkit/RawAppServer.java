package dev.codexclient.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * A deliberately minimal JSON-lines driver for {@code codex app-server} over stdio, independent of the SDK under
 * test: it writes messages, keeps every received message, and lets a test wait for one matching a predicate. It
 * also keeps a transcript of the traffic in both directions, in wire order.
 */
final class RawAppServer implements AutoCloseable {

    static final ObjectMapper JSON = new ObjectMapper();
    static final Duration WAIT = Duration.ofSeconds(15);

    /** One message as it crossed the wire; {@code sent} is client to server. */
    record Traffic(boolean sent, JsonNode message) {
    }

    private final Process process;
    private final OutputStream stdin;
    private final Thread reader;
    private final Thread stderrDrain;
    private final Object lock = new Object();
    private final List<JsonNode> inbox = new ArrayList<>();
    private final List<Traffic> transcript = new ArrayList<>();
    private final StringBuilder stderr = new StringBuilder();
    private final AtomicLong nextId = new AtomicLong(1);
    private volatile boolean eof;
    private volatile List<ProcessHandle> killed = List.of();

    private RawAppServer(Process process) {
        this.process = process;
        this.stdin = process.getOutputStream();
        this.reader = new Thread(this::readLoop, "raw-app-server-stdout");
        this.reader.setDaemon(true);
        this.stderrDrain = new Thread(this::drainStderr, "raw-app-server-stderr");
        this.stderrDrain.setDaemon(true);
        reader.start();
        stderrDrain.start();
    }

    static RawAppServer start(Path codex, ScriptedModelServer model, Path cwd) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(codex.toString(), "app-server").directory(cwd.toFile());
        model.applyEnvironment(builder.environment());
        builder.environment().put("RUST_LOG", "warn");
        return new RawAppServer(builder.start());
    }

    private void readLoop() {
        try (BufferedReader in = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isBlank()) {
                    continue;
                }
                JsonNode message;
                try {
                    message = JSON.readTree(line);
                } catch (IOException e) {
                    synchronized (lock) {
                        stderr.append("[unparseable stdout line] ").append(line).append('\n');
                    }
                    continue;
                }
                synchronized (lock) {
                    inbox.add(message);
                    transcript.add(new Traffic(false, message));
                    lock.notifyAll();
                }
            }
        } catch (IOException e) {
            // The process went away; waiters see eof.
        } finally {
            eof = true;
            synchronized (lock) {
                lock.notifyAll();
            }
        }
    }

    private void drainStderr() {
        try (BufferedReader in = new BufferedReader(
                new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                synchronized (lock) {
                    if (stderr.length() < 64_000) {
                        stderr.append(line).append('\n');
                    }
                }
            }
        } catch (IOException e) {
            // Process gone.
        }
    }

    void send(ObjectNode message) throws IOException {
        byte[] line = (JSON.writeValueAsString(message) + "\n").getBytes(StandardCharsets.UTF_8);
        synchronized (lock) {
            transcript.add(new Traffic(true, message.deepCopy()));
            stdin.write(line);
            stdin.flush();
        }
    }

    long request(String method, Object params) throws IOException {
        long id = nextId.getAndIncrement();
        ObjectNode message = JSON.createObjectNode().put("method", method).put("id", id);
        if (params != null) {
            message.set("params", JSON.valueToTree(params));
        }
        send(message);
        return id;
    }

    void notify(String method) throws IOException {
        send(JSON.createObjectNode().put("method", method));
    }

    void respond(JsonNode id, Object result) throws IOException {
        ObjectNode message = JSON.createObjectNode();
        message.set("id", id);
        message.set("result", JSON.valueToTree(result));
        send(message);
    }

    /** Sends a request and waits for its response; fails on an error response. */
    JsonNode call(String method, Object params) throws Exception {
        long id = request(method, params);
        JsonNode response = await(m -> m.has("id") && !m.has("method") && m.path("id").asLong(-1) == id, WAIT);
        if (response.has("error")) {
            throw new AssertionError(method + " failed: " + response.get("error") + "\nstderr:\n" + stderr());
        }
        return response.path("result");
    }

    /** Waits for (and consumes) the first not yet consumed message matching {@code predicate}. */
    JsonNode await(Predicate<JsonNode> predicate, Duration timeout) throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (true) {
                for (Iterator<JsonNode> it = inbox.iterator(); it.hasNext(); ) {
                    JsonNode message = it.next();
                    if (predicate.test(message)) {
                        it.remove();
                        return message;
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || eof) {
                    throw new TimeoutException("no matching message within " + timeout + (eof ? " (stdout closed)" : "")
                            + "; unconsumed: " + inbox + "\nstderr:\n" + stderr);
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
        }
    }

    JsonNode awaitMethod(String method) throws Exception {
        return await(m -> method.equals(m.path("method").asText()), WAIT);
    }

    JsonNode awaitMethod(String method, Duration timeout) throws Exception {
        return await(m -> method.equals(m.path("method").asText()), timeout);
    }

    /** Waits for {@code turn/completed} of {@code turnId} and returns its {@code turn}. */
    JsonNode awaitTurnCompleted(String turnId) throws Exception {
        return await(m -> "turn/completed".equals(m.path("method").asText())
                && turnId.equals(m.path("params").path("turn").path("id").asText()), WAIT)
                .path("params").path("turn");
    }

    /** Every message received so far that is still unconsumed and matches {@code predicate}, consumed now. */
    List<JsonNode> drain(Predicate<JsonNode> predicate) {
        List<JsonNode> out = new ArrayList<>();
        synchronized (lock) {
            for (Iterator<JsonNode> it = inbox.iterator(); it.hasNext(); ) {
                JsonNode message = it.next();
                if (predicate.test(message)) {
                    out.add(message);
                    it.remove();
                }
            }
        }
        return out;
    }

    void handshake() throws Exception {
        ObjectNode params = JSON.createObjectNode();
        params.putObject("clientInfo").put("name", "codex-client-testkit").put("title", "codex-client testkit")
                .put("version", "0.1.0");
        params.putObject("capabilities").put("experimentalApi", true);
        call("initialize", params);
        notify("initialized");
    }

    List<Traffic> transcript() {
        synchronized (lock) {
            return List.copyOf(transcript);
        }
    }

    String stderr() {
        synchronized (lock) {
            return stderr.toString();
        }
    }

    private static boolean awaitExit(List<ProcessHandle> processes, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (ProcessHandle p : processes) {
            try {
                p.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.ExecutionException | TimeoutException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    /** The processes {@link #close()} ended (the launcher and its descendants at that moment). */
    List<ProcessHandle> killedProcesses() {
        return killed;
    }

    /** The launcher process and its descendants (the native codex binary), as of now. */
    List<ProcessHandle> processTree() {
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        tree.add(process.toHandle());
        return tree;
    }

    @Override
    public void close() {
        try {
            stdin.close();
        } catch (IOException e) {
            // Already gone.
        }
        // The npm launcher spawns the native binary: end the whole tree. It is collected first because once the
        // launcher dies its children are re-parented and no longer its descendants. Tests need no graceful
        // shutdown (a clean one takes codex over a second), so the tree is killed outright.
        List<ProcessHandle> tree = processTree();
        killed = tree;
        tree.forEach(ProcessHandle::destroyForcibly);
        if (!awaitExit(tree, Duration.ofSeconds(5))) {
            throw new IllegalStateException("codex processes survived SIGKILL: " + tree.stream()
                    .filter(ProcessHandle::isAlive).map(ProcessHandle::pid).toList());
        }
    }
}
