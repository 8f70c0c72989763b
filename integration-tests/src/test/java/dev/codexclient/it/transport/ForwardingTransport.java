package dev.codexclient.it.transport;

import dev.codexclient.transport.MessageBuffer;
import dev.codexclient.transport.MessageSink;
import dev.codexclient.transport.Transport;
import dev.codexclient.transport.TransportTermination;
import java.time.Duration;

/**
 * A transport that hands everything to another and lets a test see each message on the way: what the reader thread
 * receives ({@link #received(byte[])}, before the client's dispatcher gets it) and what the client sends
 * ({@link #sent(byte[])}).
 */
abstract class ForwardingTransport implements Transport {
    final Transport delegate;

    ForwardingTransport(Transport delegate) {
        this.delegate = delegate;
    }

    /** Called on the reader thread for each message received, before the client sees it. */
    abstract void received(byte[] message);

    /** Called for each message the client sends, before it is sent. */
    void sent(byte[] message) {
    }

    @Override
    public void start(MessageSink sink) {
        delegate.start(new MessageSink() {
            @Override
            public void onMessages(MessageBuffer batch) {
                for (int i = 0; i < batch.count(); i++) {
                    received(batch.copy(i));
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

    @Override
    public void send(byte[] message) {
        sent(message);
        delegate.send(message);
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public void close(Duration timeout) {
        delegate.close(timeout);
    }

    @Override
    public String describe() {
        return delegate.describe();
    }
}
