package dev.codexclient.it.transport;

import dev.codexclient.transport.Transport;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A transport seen from the wire: counts what its reader thread hands on and notices {@code turn/completed}, before
 * the client's dispatcher gets the message. Shows what the reader did while user code was busy elsewhere.
 */
final class TappedTransport extends ForwardingTransport {

    final CompletableFuture<Void> turnCompleted = new CompletableFuture<>();
    final AtomicLong messages = new AtomicLong();
    final AtomicLong bytes = new AtomicLong();

    TappedTransport(Transport delegate) {
        super(delegate);
    }

    @Override
    void received(byte[] message) {
        messages.incrementAndGet();
        bytes.addAndGet(message.length);
        String head = new String(message, 0, Math.min(64, message.length), StandardCharsets.UTF_8);
        if (head.startsWith("{\"method\":\"turn/completed\"")) {
            turnCompleted.complete(null);
        }
    }
}
