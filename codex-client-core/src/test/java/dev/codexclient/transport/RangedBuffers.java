package dev.codexclient.transport;

/** Buffers of ranges of one array, as the stream framer fills them, for tests of the code that reads them. */
public final class RangedBuffers {
    private RangedBuffers() {
    }

    /**
     * {@return a buffer whose messages are the ranges {@code [starts[i], ends[i])} of {@code array}}
     *
     * @param array  the array the ranges are of
     * @param bounds the ranges, as pairs of start and end
     */
    public static MessageBuffer of(byte[] array, int... bounds) {
        MessageBuffer buffer = new MessageBuffer();
        buffer.reset(array);
        for (int i = 0; i + 1 < bounds.length; i += 2) {
            buffer.addRange(bounds[i], bounds[i + 1]);
        }
        return buffer;
    }
}
