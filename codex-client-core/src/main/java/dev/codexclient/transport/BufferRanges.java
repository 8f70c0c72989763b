package dev.codexclient.transport;

import dev.codexclient.internal.transport.MessageBufferRanges;

/**
 * The one implementation of {@link MessageBufferRanges}: what the stream transports' framers, and no other code, do
 * with a {@link MessageBuffer} (fill it with ranges of their own read buffer instead of copies). Loaded by name from
 * {@link MessageBufferRanges#get()}, so that the buffer's public face keeps only what any transport may call and no
 * two files import each other.
 */
final class BufferRanges extends MessageBufferRanges {
    static {
        MessageBufferRanges.install(new BufferRanges());
    }

    private BufferRanges() {
    }

    @Override
    public void reset(MessageBuffer buffer, byte[] array) {
        buffer.reset(array);
    }

    @Override
    public void addRange(MessageBuffer buffer, int start, int end) {
        buffer.addRange(start, end);
    }
}
