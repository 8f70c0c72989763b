package dev.codexclient.internal.transport;

import dev.codexclient.transport.MessageBuffer;
import java.util.Objects;

/**
 * What the stream transports' framers do with a {@link MessageBuffer} that no other code may: fill it with ranges
 * of their own read buffer instead of copies. The one implementation sits beside {@code MessageBuffer}, whose
 * package-private methods it calls, and installs itself when it loads; {@link #get()} loads it by name, so that
 * neither package's file imports the other's back. The buffer's public face keeps only what any transport may call
 * ({@code of}, {@code add}, {@code clear}).
 */
public abstract class MessageBufferRanges {
    private static final String IMPLEMENTATION = "dev.codexclient.transport.BufferRanges";
    private static volatile MessageBufferRanges installed;

    /** Empties {@code buffer}; its next messages will be ranges of {@code array}, which it never writes to. */
    public abstract void reset(MessageBuffer buffer, byte[] array);

    /**
     * Adds to {@code buffer} the message at {@code [start, end)} of the array given to {@link #reset}.
     *
     * @throws IndexOutOfBoundsException when the range is not inside the array
     */
    public abstract void addRange(MessageBuffer buffer, int start, int end);

    /** Called once, by the implementation's initialisation. */
    public static void install(MessageBufferRanges ranges) {
        if (installed != null) {
            throw new IllegalStateException("already installed");
        }
        installed = Objects.requireNonNull(ranges, "ranges");
    }

    /** {@return the implementation, loading it first if nothing has yet} */
    public static MessageBufferRanges get() {
        MessageBufferRanges r = installed;
        if (r == null) {
            try {
                Class.forName(IMPLEMENTATION, true, MessageBufferRanges.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException("the core's own " + IMPLEMENTATION + " is missing", e);
            }
            r = installed;
        }
        return r;
    }
}
