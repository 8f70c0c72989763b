package dev.codexclient.internal.transport.websocket;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FrameWriterTest {

    /** Collects what the writer writes. */
    private static final class Capture implements FrameWriter.Output {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        @Override
        public void write(ByteBuffer[] buffers, long deadlineNanos) {
            for (ByteBuffer b : buffers) {
                byte[] chunk = new byte[b.remaining()];
                b.get(chunk);
                bytes.writeBytes(chunk);
            }
        }
    }

    @Test
    void everyLengthEncodingRoundTripsWithItsMask() throws Exception {
        Random random = new Random(1);
        for (int length : new int[] {0, 1, 7, 8, 9, 125, 126, 127, 65535, 65536, 65537, 64 * 1024 + 3, 300_001}) {
            byte[] payload = new byte[length + 10];
            random.nextBytes(payload);
            Capture capture = new Capture();
            new FrameWriter(capture, new SecureRandom()).writeFrame(FrameReader.TEXT, length % 2 == 0, payload, 5,
                    length, ChannelWire.NO_DEADLINE);
            ByteBuffer frame = ByteBuffer.wrap(capture.bytes.toByteArray());
            int b0 = frame.get() & 0xFF;
            int b1 = frame.get() & 0xFF;
            assertThat(b0 & 0x0F).isEqualTo(FrameReader.TEXT);
            assertThat((b0 & 0x80) != 0).isEqualTo(length % 2 == 0);
            assertThat(b1 & 0x80).as("client frames are masked").isEqualTo(0x80);
            long encoded = b1 & 0x7F;
            if (length < 126) {
                assertThat(encoded).isEqualTo(length);
            } else if (length < 65536) {
                assertThat(encoded).isEqualTo(126);
                encoded = frame.getShort() & 0xFFFF;
            } else {
                assertThat(encoded).isEqualTo(127);
                encoded = frame.getLong();
            }
            assertThat(encoded).isEqualTo(length);
            byte[] mask = new byte[4];
            frame.get(mask);
            byte[] body = new byte[frame.remaining()];
            frame.get(body);
            for (int i = 0; i < body.length; i++) {
                body[i] ^= mask[i & 3];
            }
            assertThat(body).isEqualTo(Arrays.copyOfRange(payload, 5, 5 + length));
        }
    }

    @Test
    void theCallersArrayIsLeftAlone() throws Exception {
        byte[] payload = "{\"unchanged\":true}".getBytes();
        byte[] copy = payload.clone();
        new FrameWriter(new Capture(), new SecureRandom()).writeFrame(FrameReader.TEXT, true, payload, 0,
                payload.length, ChannelWire.NO_DEADLINE);
        assertThat(payload).isEqualTo(copy);
    }

    @Test
    void masksDiffer() throws Exception {
        Set<String> masks = new HashSet<>();
        FrameWriter writer;
        for (int i = 0; i < 50; i++) {
            Capture capture = new Capture();
            writer = new FrameWriter(capture, new SecureRandom());
            writer.writeFrame(FrameReader.PING, true, new byte[0], 0, 0, ChannelWire.NO_DEADLINE);
            masks.add(Arrays.toString(Arrays.copyOfRange(capture.bytes.toByteArray(), 2, 6)));
        }
        assertThat(masks.size()).isGreaterThan(45);
    }

    @Test
    void aLongCloseReasonIsCutAtACharacterBoundary() throws Exception {
        Capture capture = new Capture();
        new FrameWriter(capture, new SecureRandom()).writeClose(1002, "é".repeat(100), ChannelWire.NO_DEADLINE);
        byte[] frame = capture.bytes.toByteArray();
        int length = frame[1] & 0x7F;
        assertThat(length).isLessThanOrEqualTo(125).isEven();
        byte[] body = Arrays.copyOfRange(frame, 6, frame.length);
        for (int i = 0; i < body.length; i++) {
            body[i] ^= frame[2 + (i & 3)];
        }
        assertThat(Utf8Validator.isValid(Arrays.copyOfRange(body, 2, body.length))).isTrue();
        assertThat(((body[0] & 0xFF) << 8) | (body[1] & 0xFF)).isEqualTo(1002);
    }
}
