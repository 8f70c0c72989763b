package dev.codexclient.it.transport;

import dev.codexclient.transport.MessageBuffer;
import dev.codexclient.transport.MessageSink;
import dev.codexclient.transport.Transport;
import dev.codexclient.transport.TransportTermination;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A transport seen from the wire: counts what its reader thread hands on and notices {@code turn/completed}, before
 * the client's dispatcher gets the message. Shows what the reader did while user code was busy elsewhere.
 */
final class TappedTransport implements Transport {

    final CompletableFuture<Void> turnCompleted = new CompletableFuture<>();
    final AtomicLong messages = new AtomicLong();
    final AtomicLong bytes = new AtomicLong();
    private final Transport delegate;

    TappedTransport(Transport delegate) {
        this.delegate = delegate;
    }

    @Override
    public void start(MessageSink sink) {
        delegate.start(new MessageSink() {
            @Override
            public void onMessages(MessageBuffer batch) {
                for (int i = 0; i < batch.count(); i++) {
                    see(batch.copy(i));
                }
                sink.onMessages(batch);
            }

            @Override
            public void onOversizedMessage(long length) {
                sink.onOversizedMessage(length);
            }

            @Override
            public void onClosed(TransportTermination termination) {
                sink.onClosed(termination);
            }
        });
    }

    private void see(byte[] message) {
        messages.incrementAndGet();
        bytes.addAndGet(message.length);
        String head = new String(message, 0, Math.min(64, message.length), StandardCharsets.UTF_8);
        if (head.startsWith("{\"method\":\"turn/completed\"")) {
            turnCompleted.complete(null);
        }
    }

    @Override
    public void send(byte[] message) {
        delegate.send(message);
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public String describe() {
        return delegate.describe();
    }
}
