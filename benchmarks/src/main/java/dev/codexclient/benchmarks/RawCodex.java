package dev.codexclient.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A {@code codex app-server} spoken to with hand-written JSON lines and nothing else: the floor a client can reach
 * (spawn, {@code initialize}, and on to the first event of a turn, or a cold {@code thread/resume}), for figures 11
 * and 12 ({@link StartupFigure}, {@link RestartFigure}).
 */
final class RawCodex implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNode END = JSON.createObjectNode();

    private final Process process;
    private final OutputStream stdin;
    private final BlockingQueue<JsonNode> lines = new LinkedBlockingQueue<>();
    private final Duration timeout;

    private RawCodex(Process process, Duration timeout) {
        this.process = process;
        this.stdin = process.getOutputStream();
        this.timeout = timeout;
        Thread reader = new Thread(this::read, "bench-raw-codex-" + process.pid());
        reader.setDaemon(true);
        reader.start();
        Thread stderr = new Thread(() -> {
            try {
                process.getErrorStream().transferTo(OutputStream.nullOutputStream());
            } catch (IOException e) {
                // the process ended
            }
        }, "bench-raw-codex-stderr-" + process.pid());
        stderr.setDaemon(true);
        stderr.start();
    }

    /** Spawns {@code command} with exactly {@code environment} in {@code directory}. */
    static RawCodex start(List<String> command, Map<String, String> environment, Path directory, Duration timeout)
            throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command).directory(directory.toFile());
        pb.environment().clear();
        pb.environment().putAll(environment);
        return new RawCodex(pb.start(), timeout);
    }

    /** Sends {@code initialize} and waits for its response. */
    void initialize() throws IOException, InterruptedException {
        send("{\"id\":1,\"method\":\"initialize\",\"params\":{\"clientInfo\":{\"name\":\"bench_raw\",\"title\":"
                + "\"raw\",\"version\":\"0\"},\"capabilities\":{\"experimentalApi\":false}}}");
        expect(m -> m.path("id").asInt(-1) == 1 && !m.has("method"), "the initialize response");
    }

    /**
     * After {@link #initialize()}: {@code initialized}, {@code thread/start} in {@code cwd}, {@code turn/start}, and
     * the turn's first notification.
     */
    void firstTurnEvent(Path cwd, String text) throws IOException, InterruptedException {
        send("{\"method\":\"initialized\"}");
        send("{\"id\":2,\"method\":\"thread/start\",\"params\":{\"cwd\":" + JSON.writeValueAsString(cwd.toString())
                + ",\"approvalPolicy\":\"never\",\"sandbox\":\"danger-full-access\"}}");
        JsonNode started = expect(m -> m.path("id").asInt(-1) == 2 && !m.has("method"), "the thread/start response");
        String thread = started.path("result").path("thread").path("id").asText();
        send("{\"id\":3,\"method\":\"turn/start\",\"params\":{\"threadId\":" + JSON.writeValueAsString(thread)
                + ",\"input\":[{\"type\":\"text\",\"text\":" + JSON.writeValueAsString(text) + "}]}}");
        expect(m -> m.path("method").asText().startsWith("turn/")
                && thread.equals(m.path("params").path("threadId").asText()), "the turn's first event");
    }

    /**
     * After {@link #initialize()}: {@code initialized}, then {@code thread/resume} of {@code threadId}, with
     * {@code excludeTurns} or without.
     *
     * @return the size of the response in bytes, as JSON
     */
    long resume(String threadId, boolean excludeTurns) throws IOException, InterruptedException {
        send("{\"method\":\"initialized\"}");
        send("{\"id\":2,\"method\":\"thread/resume\",\"params\":{\"threadId\":" + JSON.writeValueAsString(threadId)
                + (excludeTurns ? ",\"excludeTurns\":true" : "") + "}}");
        JsonNode response = expect(m -> m.path("id").asInt(-1) == 2 && !m.has("method"), "the thread/resume response");
        if (!response.has("result")) {
            throw new IllegalStateException("thread/resume failed: " + response.path("error"));
        }
        return JSON.writeValueAsBytes(response).length;
    }

    /** The process, to be measured or ended. */
    ProcessHandle handle() {
        return process.toHandle();
    }

    private void send(String line) throws IOException {
        stdin.write(line.getBytes(StandardCharsets.UTF_8));
        stdin.write('\n');
        stdin.flush();
    }

    private JsonNode expect(Predicate<JsonNode> wanted, String what) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            JsonNode m = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (m == null) {
                throw new IllegalStateException("no " + what + " from codex within " + timeout);
            }
            if (m == END) {
                throw new IllegalStateException("codex ended before " + what + " (exit code "
                        + (process.isAlive() ? "?" : process.exitValue()) + ")");
            }
            if (wanted.test(m)) {
                return m;
            }
        }
    }

    private void read() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                try {
                    lines.add(JSON.readTree(line));
                } catch (IOException e) {
                    // not JSON: not ours to read
                }
            }
        } catch (IOException e) {
            // the process ended
        } finally {
            lines.add(END);
        }
    }

    /** Closes stdin, waits a moment for the exit, then kills the process and everything it started. */
    @Override
    public void close() {
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        try {
            stdin.close();
        } catch (IOException e) {
            // already gone
        }
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        tree.forEach(ProcessHandle::destroyForcibly);
    }
}
