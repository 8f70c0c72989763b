package dev.codexclient.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.codexclient.testkit.internal.fake.Json;
import dev.codexclient.testkit.internal.fake.LineSplitter;
import dev.codexclient.transport.MessageBuffer;
import dev.codexclient.transport.MessageSink;
import dev.codexclient.transport.Transport;
import dev.codexclient.transport.TransportTermination;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * A deliberately dumb JSON-lines client for testing the fake: it sends what it is told and keeps everything it
 * reads. Works over a {@link Transport} (in memory) or over a child process's real pipes.
 */
final class RawClient implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(5);

    private final Transport transport;
    private final Process process;
    private final OutputStream stdin;
    private final List<JsonNode> inbox = new ArrayList<>();
    private final List<Boolean> consumed = new ArrayList<>();
    private final AtomicLong ids = new AtomicLong(1);
    private final AtomicLong stderrBytes = new AtomicLong();
    private final List<Long> oversized = new ArrayList<>();
    private volatile TransportTermination termination;
    private volatile boolean eof;
    private final List<Integer> chunkSizes = new ArrayList<>();

    private RawClient(Transport transport, Process process) {
        this.transport = transport;
        this.process = process;
        this.stdin = process == null ? null : process.getOutputStream();
    }

    static RawClient inMemory(FakeCodexAppServer fake) {
        RawClient client = new RawClient(fake.connectInMemory(), null);
        client.transport.start(new MessageSink() {
            @Override
            public void onMessages(MessageBuffer messages) {
                for (int i = 0; i < messages.count(); i++) {
                    onMessage(messages.copy(i));
                }
            }

            void onMessage(byte[] message) {
                client.add(parse(message));
            }

            @Override
            public void onOversizedMessage(long length) {
                synchronized (client.inbox) {
                    client.oversized.add(length);
                    client.inbox.notifyAll();
                }
            }

            @Override
            public void onClosed(TransportTermination t) {
                synchronized (client.inbox) {
                    client.termination = t;
                    client.eof = true;
                    client.inbox.notifyAll();
                }
            }
        });
        return client;
    }

    static RawClient child(List<String> command) throws IOException {
        Process p = new ProcessBuilder(command).start();
        RawClient client = new RawClient(null, p);
        Thread out = new Thread(() -> client.readStdout(p.getInputStream()), "test-raw-stdout");
        out.setDaemon(true);
        out.start();
        Thread err = new Thread(() -> client.drainStderr(p.getErrorStream()), "test-raw-stderr");
        err.setDaemon(true);
        err.start();
        return client;
    }

    private void readStdout(InputStream in) {
        LineSplitter splitter = new LineSplitter(64 * 1024 * 1024, line -> add(parse(line)), n -> {
            synchronized (inbox) {
                oversized.add(n);
            }
        });
        byte[] buf = new byte[1 << 16];
        try {
            int n;
            while ((n = in.read(buf)) >= 0) {
                synchronized (inbox) {
                    chunkSizes.add(n);
                }
                splitter.feed(buf, 0, n);
            }
        } catch (IOException ignored) {
            // process ended
        }
        splitter.finish();
        synchronized (inbox) {
            eof = true;
            inbox.notifyAll();
        }
    }

    private void drainStderr(InputStream err) {
        byte[] buf = new byte[1 << 16];
        try {
            int n;
            while ((n = err.read(buf)) >= 0) {
                stderrBytes.addAndGet(n);
            }
        } catch (IOException ignored) {
            // process ended
        }
    }

    private static JsonNode parse(byte[] line) {
        try {
            return Json.parse(line);
        } catch (IOException e) {
            return TextNode.valueOf(new String(line, StandardCharsets.UTF_8));
        }
    }

    private void add(JsonNode node) {
        synchronized (inbox) {
            inbox.add(node);
            consumed.add(false);
            inbox.notifyAll();
        }
    }

    void sendRaw(String line) {
        byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
        if (transport != null) {
            transport.send(bytes);
        } else {
            try {
                stdin.write(bytes);
                stdin.write('\n');
                stdin.flush();
            } catch (IOException e) {
                throw new AssertionError("write to child failed", e);
            }
        }
    }

    void send(JsonNode message) {
        sendRaw(message.toString());
    }

    /** Sends a request with an integer id; returns the id. */
    long request(String method, Object params) {
        long id = ids.getAndIncrement();
        ObjectNode msg = Json.object().put("id", id).put("method", method);
        msg.set("params", Json.tree(params));
        send(msg);
        return id;
    }

    void notifyServer(String method) {
        send(Json.object().put("method", method));
    }

    /** Sends a request and waits for its response. */
    JsonNode call(String method, Object params) {
        long id = request(method, params);
        return response(id);
    }

    JsonNode response(long id) {
        return take(m -> m.path("id").isIntegralNumber() && m.path("id").asLong() == id
                && !m.has("method"), "response to " + id);
    }

    JsonNode result(String method, Object params) {
        JsonNode response = call(method, params);
        assertThat(response.has("result")).as("%s answered %s", method, response).isTrue();
        return response.get("result");
    }

    void initialize() {
        JsonNode r = result("initialize", Json.parseUnchecked(
                "{\"clientInfo\":{\"name\":\"raw\",\"title\":\"Raw\",\"version\":\"1.0\"},"
                        + "\"capabilities\":{\"experimentalApi\":true}}"));
        assertThat(r.path("userAgent").asText()).isNotEmpty();
        notifyServer("initialized");
    }

    String startThread() {
        return result("thread/start", Json.object()).path("thread").path("id").asText();
    }

    JsonNode notification(String method) {
        return take(m -> method.equals(m.path("method").asText(null)) && !m.has("id"), "notification " + method);
    }

    JsonNode serverRequest(String method) {
        return take(m -> method.equals(m.path("method").asText(null)) && m.has("id"), "server request " + method);
    }

    /** Takes the first not-yet-taken message matching {@code p}, waiting up to {@link #WAIT}. */
    JsonNode take(Predicate<JsonNode> p, String what) {
        return poll(p, WAIT).orElseThrow(() -> new AssertionError("no " + what + " within " + WAIT
                + "; inbox: " + summary()));
    }

    Optional<JsonNode> poll(Predicate<JsonNode> p, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (inbox) {
            while (true) {
                for (int i = 0; i < inbox.size(); i++) {
                    if (!consumed.get(i) && p.test(inbox.get(i))) {
                        consumed.set(i, true);
                        return Optional.of(inbox.get(i));
                    }
                }
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    return Optional.empty();
                }
                try {
                    inbox.wait(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return Optional.empty();
                }
            }
        }
    }

    /** Everything received so far, in order. */
    List<JsonNode> all() {
        synchronized (inbox) {
            return List.copyOf(inbox);
        }
    }

    /** Messages of one method, in order. */
    List<JsonNode> all(String method) {
        return all().stream().filter(m -> method.equals(m.path("method").asText(null))).toList();
    }

    List<Long> oversized() {
        synchronized (inbox) {
            return List.copyOf(oversized);
        }
    }

    List<Integer> chunkSizes() {
        synchronized (inbox) {
            return List.copyOf(chunkSizes);
        }
    }

    long stderrBytes() {
        return stderrBytes.get();
    }

    boolean awaitEof(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (inbox) {
            while (!eof) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    return false;
                }
                try {
                    inbox.wait(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return true;
        }
    }

    TransportTermination termination() {
        return termination;
    }

    Process process() {
        return process;
    }

    void closeStdin() throws IOException {
        stdin.close();
    }

    private String summary() {
        return all().stream().map(m -> m.has("method") ? m.get("method").asText()
                : m.has("id") ? "response#" + m.get("id") : Json.abbreviate(m)).toList().toString();
    }

    @Override
    public void close() {
        if (transport != null) {
            transport.close();
        }
        if (process != null) {
            try {
                stdin.close();
            } catch (IOException ignored) {
                // already closed
            }
            try {
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
    }
}
