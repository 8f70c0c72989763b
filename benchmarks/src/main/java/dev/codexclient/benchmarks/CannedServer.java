package dev.codexclient.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.transport.MessageBuffer;
import dev.codexclient.transport.MessageSink;
import dev.codexclient.transport.Transport;
import dev.codexclient.transport.TransportTermination;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An in-process app-server for the in-process benchmarks: answers {@code initialize}, {@code thread/start} and
 * {@code turn/start} with results recorded from the real codex (fresh ids each time), anything else with
 * {@code {}}, and lets the benchmark inject server messages. Messages reach the client either on one reader
 * thread (as a real transport delivers them) or, in inline mode, on the injecting thread (for JMH, so one
 * benchmark call measures exactly the decode and dispatch of its messages).
 */
public final class CannedServer implements Transport {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final byte[] STOP = new byte[0];

    private final boolean inline;
    private final JsonNode threadResult;
    private final JsonNode turnResult;
    private final AtomicInteger threads = new AtomicInteger();
    private final AtomicInteger turns = new AtomicInteger();
    private final BlockingQueue<byte[]> toClient = new LinkedBlockingQueue<>();
    private volatile MessageSink sink;
    private Thread reader;

    /** @param inline deliver on the sending / injecting thread instead of a reader thread */
    public CannedServer(Recording recording, boolean inline) {
        this.inline = inline;
        this.threadResult = recording.result(2);
        this.turnResult = recording.result(3);
    }

    @Override
    public void start(MessageSink sink) {
        this.sink = sink;
        if (!inline) {
            reader = new Thread(this::readLoop, "bench-canned-reader");
            reader.setDaemon(true);
            reader.start();
        }
    }

    private void readLoop() {
        try {
            while (true) {
                byte[] next = toClient.poll(30, TimeUnit.SECONDS);
                if (next == null) {
                    continue;
                }
                if (next == STOP) {
                    return;
                }
                sink.onMessages(MessageBuffer.of(next));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Sends server messages to the client in one buffer, as a transport hands over the lines of one read. */
    public void injectAll(MessageBuffer messages) {
        if (!inline) {
            throw new IllegalStateException("buffers are injected inline only");
        }
        sink.onMessages(messages);
    }

    /** Sends a server message to the client. */
    public void inject(byte[] message) {
        if (inline) {
            sink.onMessages(MessageBuffer.of(message));
        } else {
            toClient.add(message);
        }
    }

    @Override
    public void send(byte[] message) {
        JsonNode request;
        try {
            request = JSON.readTree(message);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        JsonNode id = request.get("id");
        if (id == null) {
            return;
        }
        ObjectNode reply = JSON.createObjectNode();
        reply.set("id", id);
        switch (request.path("method").asText()) {
            case "initialize" -> {
                ObjectNode r = reply.putObject("result");
                r.put("userAgent", "bench/0.169.0");
                r.put("codexHome", "/tmp/bench-codex-home");
                r.put("platformFamily", "unix");
                r.put("platformOs", "linux");
            }
            case "thread/start" -> {
                ObjectNode r = threadResult.deepCopy();
                String threadId = "thread-" + threads.incrementAndGet();
                ((ObjectNode) r.get("thread")).put("id", threadId);
                ((ObjectNode) r.get("thread")).put("sessionId", threadId);
                reply.set("result", r);
            }
            case "turn/start" -> {
                ObjectNode r = turnResult.deepCopy();
                ((ObjectNode) r.get("turn")).put("id", "turn-" + request.path("params").path("threadId").asText());
                turns.incrementAndGet();
                reply.set("result", r);
            }
            default -> reply.putObject("result");
        }
        inject(Recording.bytes(reply));
    }

    @Override
    public void close() {
        toClient.add(STOP);
        MessageSink s = sink;
        if (s != null) {
            s.onClosed(TransportTermination.requested("closed by the benchmark"));
        }
    }

    @Override
    public String describe() {
        return "canned in-process app-server";
    }
}
