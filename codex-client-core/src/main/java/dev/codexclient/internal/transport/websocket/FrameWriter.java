package dev.codexclient.internal.transport.websocket;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;

/**
 * Encodes client frames (RFC 6455 section 5.2): every payload masked with a fresh key from a strong random source,
 * and masked into a reusable scratch buffer chunk by chunk, so a large message is neither copied whole nor
 * modified in place.
 *
 * <p>Not thread-safe: the connection calls it under its write lock.
 */
final class FrameWriter {

    /** Where the encoded bytes go; blocks until all of them are written or the deadline passes. */
    interface Output {
        void write(ByteBuffer[] buffers, long deadlineNanos) throws IOException;
    }

    private static final int CHUNK = 64 * 1024;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private final Output output;
    private final Random maskSource;
    private final byte[] scratch = new byte[CHUNK];
    private final ByteBuffer header = ByteBuffer.allocate(14);
    private final ByteBuffer[] pair = new ByteBuffer[2];

    FrameWriter(Output output, Random maskSource) {
        this.output = output;
        this.maskSource = maskSource;
    }

    /** Writes one frame carrying {@code length} bytes of {@code payload} from {@code offset}. */
    void writeFrame(int opcode, boolean fin, byte[] payload, int offset, int length, long deadlineNanos)
            throws IOException {
        int mask = maskSource.nextInt();
        header.clear();
        header.put((byte) ((fin ? 0x80 : 0) | opcode));
        if (length < 126) {
            header.put((byte) (0x80 | length));
        } else if (length < 65536) {
            header.put((byte) (0x80 | 126));
            header.putShort((short) length);
        } else {
            header.put((byte) (0x80 | 127));
            header.putLong(length);
        }
        header.putInt(mask);
        header.flip();
        long maskLong = ((mask & 0xFFFFFFFFL) << 32) | (mask & 0xFFFFFFFFL);
        int done = 0;
        boolean headerWritten = false;
        do {
            // Chunks start at multiples of CHUNK (a multiple of 4) into the payload, so each starts at mask byte 0.
            int n = Math.min(CHUNK, length - done);
            System.arraycopy(payload, offset + done, scratch, 0, n);
            applyMask(scratch, n, maskLong);
            ByteBuffer chunk = ByteBuffer.wrap(scratch, 0, n);
            if (headerWritten) {
                pair[0] = chunk;
                pair[1] = ByteBuffer.allocate(0);
            } else {
                pair[0] = header;
                pair[1] = chunk;
                headerWritten = true;
            }
            output.write(pair, deadlineNanos);
            done += n;
        } while (done < length);
    }

    /** Writes a close frame with {@code code} and a reason cut to fit the 125-byte control payload. */
    void writeClose(int code, String reason, long deadlineNanos) throws IOException {
        byte[] utf8 = reason.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        int reasonLength = Math.min(utf8.length, 123);
        // Never cut inside a multi-byte character: back up to the start of the character.
        while (reasonLength > 0 && reasonLength < utf8.length && (utf8[reasonLength] & 0xC0) == 0x80) {
            reasonLength--;
        }
        byte[] payload = new byte[2 + reasonLength];
        payload[0] = (byte) (code >>> 8);
        payload[1] = (byte) code;
        System.arraycopy(utf8, 0, payload, 2, reasonLength);
        writeFrame(FrameReader.CLOSE, true, payload, 0, payload.length, deadlineNanos);
    }

    static void applyMask(byte[] bytes, int length, long maskLong) {
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            LONGS.set(bytes, i, (long) LONGS.get(bytes, i) ^ maskLong);
        }
        for (; i < length; i++) {
            bytes[i] ^= (byte) (maskLong >>> (56 - 8 * (i & 3)));
        }
    }
}
