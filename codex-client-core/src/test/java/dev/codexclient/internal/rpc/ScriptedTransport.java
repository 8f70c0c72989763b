package dev.codexclient.internal.rpc;

import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.transport.MessageBuffer;
import dev.codexclient.transport.MessageSink;
import dev.codexclient.transport.Transport;
import dev.codexclient.transport.TransportTermination;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/** A transport whose peer is the test itself: what the client sends is queued, what the test injects is read. */
final class ScriptedTransport implements Transport {
    final BlockingQueue<String> sent = new LinkedBlockingQueue<>();
    private volatile MessageSink sink;
    private final AtomicBoolean closed = new AtomicBoolean();
    volatile boolean failSends;

    @Override
    public void start(MessageSink sink) {
        this.sink = sink;
    }

    @Override
    public void send(byte[] message) {
        if (closed.get() || failSends) {
            throw new CodexTransportException("scripted transport is closed");
        }
        sent.add(new String(message, StandardCharsets.UTF_8));
    }

    /** Delivers a line as if the server wrote it (on the caller's thread, playing the reader thread). */
    /** Delivers the lines as one batch, as a stream transport does with the lines one read completes. */
    void injectBatch(String... lines) {
        MessageBuffer batch = new MessageBuffer();
        for (String line : lines) {
            byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
            batch.add(bytes, 0, bytes.length);
        }
        sink.onMessages(batch);
    }

    void inject(String json) {
        sink.onMessages(MessageBuffer.of(json.getBytes(StandardCharsets.UTF_8)));
    }

    String takeSent(Duration timeout) throws InterruptedException {
        String s = sent.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (s == null) {
            throw new AssertionError("nothing was sent within " + timeout);
        }
        return s;
    }

    void peerExit(int code, String stderr) {
        if (closed.compareAndSet(false, true)) {
            sink.onClosed(new TransportTermination("codex exited", OptionalInt.of(code), stderr, Optional.empty(),
                    false));
        }
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            sink.onClosed(TransportTermination.requested("closed by client"));
        }
    }

    @Override
    public String describe() {
        return "scripted";
    }
}
