package dev.codexclient.internal.transport.websocket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The frame reader on its own: whatever way the bytes are cut into reads, the same events come out. */
class FrameReaderTest {

    /** What the reader reported, as text. */
    private static final class Recorder implements FrameReader.Events {
        final List<String> events = new ArrayList<>();

        @Override
        public void message(byte[] payload) {
            events.add("message " + new String(payload, StandardCharsets.UTF_8));
        }

        @Override
        public void oversized(long length) {
            events.add("oversized " + length);
        }

        @Override
        public void ping(byte[] payload) {
            events.add("ping " + new String(payload, StandardCharsets.UTF_8));
        }

        @Override
        public void close(int code, String reason) {
            events.add("close " + code + " " + reason);
        }
    }

    private static byte[] frame(int opcode, boolean fin, byte[] payload) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write((fin ? 0x80 : 0) | opcode);
        if (payload.length < 126) {
            out.write(payload.length);
        } else if (payload.length < 65536) {
            out.write(126);
            out.write(payload.length >>> 8);
            out.write(payload.length & 0xFF);
        } else {
            out.write(127);
            for (int i = 7; i >= 0; i--) {
                out.write((int) ((long) payload.length >>> (8 * i)) & 0xFF);
            }
        }
        out.write(payload, 0, payload.length);
        return out.toByteArray();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Feeds {@code stream} in pieces of the given sizes (cycled), as reads would deliver it. */
    private static List<String> read(byte[] stream, int maxMessageBytes, int[] pieces) throws Exception {
        FrameReader reader = new FrameReader(maxMessageBytes);
        Recorder recorder = new Recorder();
        ByteBuffer buffer = ByteBuffer.allocate(stream.length + 16);
        int at = 0;
        int p = 0;
        while (at < stream.length && !reader.closeReceived()) {
            int n = Math.min(pieces[p++ % pieces.length], stream.length - at);
            buffer.put(stream, at, n);
            at += n;
            buffer.flip();
            reader.feed(buffer, recorder);
            buffer.compact();
        }
        return recorder.events;
    }

    private static byte[] conversation() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] accented = utf8("{\"t\":\"é€𝄞\"}");
        out.writeBytes(frame(FrameReader.TEXT, true, utf8("{\"a\":1}")));
        out.writeBytes(frame(FrameReader.TEXT, false, java.util.Arrays.copyOfRange(accented, 0, 8)));
        out.writeBytes(frame(FrameReader.PING, true, utf8("p")));
        out.writeBytes(frame(FrameReader.CONTINUATION, false, java.util.Arrays.copyOfRange(accented, 8, 10)));
        out.writeBytes(frame(FrameReader.PONG, true, new byte[0]));
        out.writeBytes(frame(FrameReader.CONTINUATION, true, java.util.Arrays.copyOfRange(accented, 10,
                accented.length)));
        out.writeBytes(frame(FrameReader.TEXT, true, utf8("x".repeat(300))));
        out.writeBytes(frame(FrameReader.BINARY, true, utf8("y".repeat(70_000))));
        out.writeBytes(frame(FrameReader.TEXT, false, utf8("z".repeat(150))));
        out.writeBytes(frame(FrameReader.CONTINUATION, true, utf8("z".repeat(150))));
        out.writeBytes(frame(FrameReader.TEXT, true, new byte[0]));
        byte[] close = {0x03, (byte) 0xE8, 'b', 'y', 'e'};
        out.writeBytes(frame(FrameReader.CLOSE, true, close));
        out.writeBytes(frame(FrameReader.TEXT, true, utf8("{\"after\":\"close\"}")));
        return out.toByteArray();
    }

    @Test
    void theSameEventsComeOutHoweverTheBytesAreCut() throws Exception {
        byte[] stream = conversation();
        List<String> whole = read(stream, 256, new int[] {stream.length});
        assertThat(whole).containsExactly("message {\"a\":1}", "ping p", "message {\"t\":\"é€𝄞\"}",
                "oversized 300", "oversized 70000", "oversized 300", "message ", "close 1000 bye");
        assertThat(read(stream, 256, new int[] {1})).isEqualTo(whole);
        assertThat(read(stream, 256, new int[] {2, 3, 5, 7, 11})).isEqualTo(whole);
        SplittableRandom random = new SplittableRandom(17);
        for (int i = 0; i < 200; i++) {
            int[] pieces = random.ints(16, 1, 200).toArray();
            assertThat(read(stream, 256, pieces)).isEqualTo(whole);
        }
        assertThat(read(stream, 100_000, new int[] {4096})).containsExactly("message {\"a\":1}", "ping p",
                "message {\"t\":\"é€𝄞\"}", "message " + "x".repeat(300), "message " + "y".repeat(70_000),
                "message " + "z".repeat(300), "message ", "close 1000 bye");
    }

    @Test
    void nothingAfterTheCloseFrameIsConsumed() throws Exception {
        byte[] close = frame(FrameReader.CLOSE, true, new byte[0]);
        byte[] after = frame(FrameReader.TEXT, true, utf8("{}"));
        ByteBuffer buffer = ByteBuffer.allocate(close.length + after.length).put(close).put(after).flip();
        FrameReader reader = new FrameReader(1024);
        Recorder recorder = new Recorder();
        reader.feed(buffer, recorder);
        assertThat(recorder.events).containsExactly("close 1005 ");
        assertThat(reader.closeReceived()).isTrue();
        assertThat(buffer.remaining()).isEqualTo(after.length);
    }

    @Test
    void invalidUtf8IsFoundEvenWhenItsSequenceSpansFragments() {
        // E2 82 AC is '€'; E2 82 followed by a non-continuation byte is not UTF-8.
        byte[] stream = concat(frame(FrameReader.TEXT, false, new byte[] {'"', (byte) 0xE2}),
                frame(FrameReader.CONTINUATION, true, new byte[] {(byte) 0x82, '"'}));
        assertThatThrownBy(() -> read(stream, 256, new int[] {1}))
                .isInstanceOf(WebSocketProtocolException.class)
                .satisfies(e -> assertThat(((WebSocketProtocolException) e).closeCode()).isEqualTo(1007));
        byte[] fine = concat(frame(FrameReader.TEXT, false, new byte[] {'"', (byte) 0xE2}),
                frame(FrameReader.CONTINUATION, true, new byte[] {(byte) 0x82, (byte) 0xAC, '"'}));
        assertThat(catching(() -> read(fine, 1024, new int[] {1}))).containsExactly("message \"€\"");
    }

    @Test
    void aBinaryMessageIsNotCheckedForUtf8() throws Exception {
        byte[] stream = frame(FrameReader.BINARY, true, new byte[] {(byte) 0xFF, (byte) 0xC0});
        assertThat(read(stream, 256, new int[] {1})).hasSize(1);
    }

    @Test
    void randomGarbageNeverHangsOrEscapesAsAnotherException() {
        Random random = new Random(3);
        for (int round = 0; round < 20_000; round++) {
            byte[] garbage = new byte[1 + random.nextInt(40)];
            random.nextBytes(garbage);
            try {
                read(garbage, 1024, new int[] {1 + random.nextInt(5)});
            } catch (WebSocketProtocolException e) {
                assertThat(e.closeCode()).isIn(1002, 1007);
            } catch (Exception e) {
                throw new AssertionError("unexpected " + e, e);
            }
        }
    }

    private interface Reading {
        List<String> run() throws Exception;
    }

    private static List<String> catching(Reading r) {
        try {
            return r.run();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
