package dev.codexclient.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

class LineFramerTest {

    private static final int CAP = 1024;

    /** Returns the data in reads of the given sizes (the last size repeats). */
    static final class ChunkedInput extends InputStream {
        private final byte[] data;
        private final Deque<Integer> sizes;
        private int last = Integer.MAX_VALUE;
        private int pos;

        ChunkedInput(byte[] data, int... sizes) {
            this.data = data;
            this.sizes = new ArrayDeque<>();
            for (int s : sizes) {
                this.sizes.add(s);
            }
        }

        @Override
        public int read() {
            throw new AssertionError("the framer must not read byte by byte");
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (pos >= data.length) {
                return -1;
            }
            int size = sizes.isEmpty() ? last : sizes.poll();
            last = size;
            int n = Math.min(Math.min(size, len), data.length - pos);
            System.arraycopy(data, pos, b, off, n);
            pos += n;
            return n;
        }
    }

    private static RecordingSink frame(byte[] data, int cap, int... chunks) throws IOException {
        RecordingSink sink = new RecordingSink();
        new LineFramer(cap, sink).readAll(new ChunkedInput(data, chunks));
        return sink;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void splitsLinesAndStripsCarriageReturns() throws IOException {
        RecordingSink sink = frame(utf8("{\"a\":1}\n{\"b\":2}\r\n{\"c\":3}\n"), CAP);
        assertThat(sink.texts()).containsExactly("{\"a\":1}", "{\"b\":2}", "{\"c\":3}");
        assertThat(sink.oversized).isEmpty();
    }

    @Test
    void reassemblesLinesSplitAcrossReadsOfAnySize() throws IOException {
        byte[] data = utf8("{\"first\":true}\r\n{\"second\":[1,2,3]}\n{\"third\":\"x\"}\n");
        for (int chunk = 1; chunk <= data.length; chunk++) {
            RecordingSink sink = frame(data, CAP, chunk);
            assertThat(sink.texts()).as("chunk size %d", chunk)
                    .containsExactly("{\"first\":true}", "{\"second\":[1,2,3]}", "{\"third\":\"x\"}");
        }
    }

    @Test
    void multiByteCharacterSplitAtEveryBytePosition() throws IOException {
        // 2-, 3- and 4-byte sequences (é, €, 𝄞) plus a CJK character.
        String text = "{\"t\":\"é€𝄞漢\"}";
        byte[] data = utf8(text + "\n" + text + "\r\n");
        for (int split = 1; split < data.length; split++) {
            RecordingSink sink = frame(data, CAP, split, data.length);
            assertThat(sink.texts()).as("split at %d", split).containsExactly(text, text);
        }
    }

    @Test
    void skipsBlankLines() throws IOException {
        RecordingSink sink = frame(utf8("\n\r\n   \n\t\r\n{}\n\n \n[]\n"), CAP, 3);
        assertThat(sink.texts()).containsExactly("{}", "[]");
    }

    @Test
    void deliversAFinalLineWithoutNewline() throws IOException {
        RecordingSink sink = frame(utf8("{\"a\":1}\n{\"trunc"), CAP, 4);
        assertThat(sink.texts()).containsExactly("{\"a\":1}", "{\"trunc");
    }

    @Test
    void emptyStreamDeliversNothing() throws IOException {
        assertThat(frame(new byte[0], CAP).messages).isEmpty();
    }

    @Test
    void lineExactlyAtTheCapIsDelivered() throws IOException {
        String atCap = "x".repeat(CAP);
        for (String terminator : List.of("\n", "\r\n")) {
            for (int chunk : new int[] {1, 7, 512, CAP, CAP + 1, 1 << 16}) {
                RecordingSink sink = frame(utf8(atCap + terminator + "{}\n"), CAP, chunk);
                assertThat(sink.texts()).as("chunk %d, terminator %s", chunk, terminator.length())
                        .containsExactly(atCap, "{}");
                assertThat(sink.oversized).isEmpty();
            }
        }
    }

    @Test
    void lineOneByteOverTheCapIsReportedNotDelivered() throws IOException {
        String over = "y".repeat(CAP + 1);
        for (String terminator : List.of("\n", "\r\n")) {
            for (int chunk : new int[] {1, 100, CAP + 1, CAP + 2, 1 << 16}) {
                RecordingSink sink = frame(utf8("{\"before\":1}\n" + over + terminator + "{\"after\":1}\n"), CAP,
                        chunk);
                assertThat(sink.texts()).as("chunk %d", chunk).containsExactly("{\"before\":1}", "{\"after\":1}");
                assertThat(sink.oversized).as("chunk %d", chunk).containsExactly((long) CAP + 1);
            }
        }
    }

    /** Records every delivery in wire order: each buffer as the list of its lines, and each oversized length. */
    private static final class OrderSink implements MessageSink {
        final List<Object> events = new ArrayList<>();

        @Override
        public void onMessages(MessageBuffer messages) {
            List<String> batch = new ArrayList<>();
            for (int i = 0; i < messages.count(); i++) {
                batch.add(messages.text(i));
            }
            events.add(batch);
        }

        @Override
        public void onOversizedMessage(long length) {
            events.add(length);
        }

        @Override
        public void onClosed(TransportTermination termination) {
        }
    }

    @Test
    void aLineSplitAcrossReadsArrivesWholeWithTheLinesOfTheReadThatEndsIt() throws IOException {
        OrderSink sink = new OrderSink();
        // Read 1: a whole line and the start of the second; read 2: the rest of it and a third line.
        new LineFramer(CAP, sink).readAll(new ChunkedInput(utf8("{\"a\":1}\n{\"b\"" + ":2}\n{\"c\":3}\n"), 12, 100));
        assertThat(sink.events).containsExactly(List.of("{\"a\":1}"), List.of("{\"b\":2}", "{\"c\":3}"));
    }

    @Test
    void multiByteCharactersSplitAcrossReadsArriveWhole() throws IOException {
        String line = "{\"d\":\"h\u00e9llo \u20ac \ud83d\ude00 \u4e2d\u6587\"}";
        byte[] data = utf8(line + "\n" + line + "\r\n" + line + "\n");
        for (int split = 1; split < data.length; split++) {
            RecordingSink sink = frame(data, CAP, split, data.length);
            assertThat(sink.texts()).as("split at byte %d", split).containsExactly(line, line, line);
        }
        for (int chunk = 1; chunk <= 7; chunk++) {
            assertThat(frame(data, CAP, chunk).texts()).as("chunk %d", chunk).containsExactly(line, line, line);
        }
    }

    @Test
    void severalLinesOfOneReadWithABadOneInTheMiddleAllArriveInOrder() throws IOException {
        OrderSink sink = new OrderSink();
        new LineFramer(CAP, sink).readAll(new ChunkedInput(utf8("{\"a\":1}\nnot json {\n{\"c\":3}\n"), 1 << 16));
        assertThat(sink.events).containsExactly(List.of("{\"a\":1}", "not json {", "{\"c\":3}"));
    }

    @Test
    void aLineOverTheCapAcrossSeveralReadsIsDrainedBetweenTheLinesAroundIt() throws IOException {
        String over = "o".repeat(3 * CAP + 17);
        byte[] data = utf8("{\"a\":1}\n{\"b\":2}\n" + over + "\n{\"c\":3}\n{\"d\":4}\n");
        for (int chunk : new int[] {20, 100, CAP / 2, CAP + 3, 1 << 16}) {
            OrderSink sink = new OrderSink();
            LineFramer framer = new LineFramer(CAP, sink);
            framer.readAll(new ChunkedInput(data, chunk));
            List<Object> flat = new ArrayList<>();
            for (Object e : sink.events) {
                if (e instanceof List<?> batch) {
                    flat.addAll(batch);
                } else {
                    flat.add(e);
                }
            }
            assertThat(flat).as("chunk %d", chunk)
                    .containsExactly("{\"a\":1}", "{\"b\":2}", (long) over.length(), "{\"c\":3}", "{\"d\":4}");
            assertThat(framer.bufferCapacity()).as("chunk %d", chunk).isLessThanOrEqualTo(LineFramer.INITIAL_BUFFER);
        }
    }

    @Test
    void hugeLineIsDrainedWithoutGrowingTheBufferAndTheNextLineArrives() throws IOException {
        int huge = 5 * 1024 * 1024;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(utf8("{\"n\":1}\n"));
        byte[] filler = new byte[huge];
        Arrays.fill(filler, (byte) 'z');
        out.write(filler);
        out.write(utf8("\r\n{\"n\":2}\n"));
        byte[] data = out.toByteArray();

        RecordingSink sink = new RecordingSink();
        LineFramer framer = new LineFramer(CAP, sink);
        framer.readAll(new ChunkedInput(data, 1 << 16));
        assertThat(sink.texts()).containsExactly("{\"n\":1}", "{\"n\":2}");
        assertThat(sink.oversized).containsExactly((long) huge);
        assertThat(framer.bufferCapacity()).isEqualTo(LineFramer.INITIAL_BUFFER);
    }

    @Test
    void bufferShrinksBackAfterALargeLine() throws IOException {
        RecordingSink sink = new RecordingSink();
        LineFramer framer = new LineFramer(1 << 20, sink);
        framer.readAll(new ChunkedInput(utf8("x".repeat(500_000) + "\n{}\n"), 1 << 16));
        assertThat(sink.messages).hasSize(2);
        assertThat(framer.bufferCapacity()).isEqualTo(LineFramer.INITIAL_BUFFER);
    }

    @Test
    void oversizedLineAtEndOfStreamIsReported() throws IOException {
        RecordingSink sink = frame(utf8("{}\n" + "q".repeat(3000)), CAP, 100);
        assertThat(sink.texts()).containsExactly("{}");
        assertThat(sink.oversized).containsExactly(3000L);
    }

    @Test
    void largeLinesBelowTheCapGrowTheBufferAndAreDeliveredIntact() throws IOException {
        int cap = 4 * 1024 * 1024;
        String big = "{\"data\":\"" + "é".repeat(1_000_000) + "\"}";
        byte[] data = utf8("{\"small\":1}\n" + big + "\n{\"small\":2}\n");
        RecordingSink sink = frame(data, cap, 8191);
        assertThat(sink.texts()).containsExactly("{\"small\":1}", big, "{\"small\":2}");
    }

    @Test
    void readsGoThroughTheBulkReadMethod() throws IOException {
        // ChunkedInput fails on read(); a framer calling it byte by byte would throw here.
        RecordingSink sink = new RecordingSink();
        new LineFramer(CAP, sink).readAll(new ChunkedInput(utf8("{}\n"), 1));
        assertThat(sink.texts()).containsExactly("{}");
    }

    @Test
    void eachMessageIsAFreshArray() throws IOException {
        RecordingSink sink = new RecordingSink();
        new LineFramer(CAP, sink).readAll(new ByteArrayInputStream(utf8("{\"a\":1}\n{\"b\":2}\n")));
        assertThat(sink.messages.get(0)).isNotSameAs(sink.messages.get(1));
        assertThat(sink.messages.get(0)).hasSize(7);
    }

    @Test
    void rejectsTinyCaps() {
        assertThatThrownBy(() -> new LineFramer(1023, new RecordingSink()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1024");
    }

    @Test
    void readFailureKeepsCompletedLines() {
        RecordingSink sink = new RecordingSink();
        InputStream failing = new InputStream() {
            private boolean first = true;

            @Override
            public int read() {
                throw new AssertionError();
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (first) {
                    first = false;
                    byte[] d = utf8("{\"ok\":1}\n{\"partial");
                    System.arraycopy(d, 0, b, off, d.length);
                    return d.length;
                }
                throw new IOException("boom");
            }
        };
        assertThatThrownBy(() -> new LineFramer(CAP, sink).readAll(failing)).hasMessage("boom");
        assertThat(sink.texts()).containsExactly("{\"ok\":1}");
    }

    @Test
    void findsTheFirstNewlineAtEveryOffsetAmongAnyBytes() {
        java.util.Random random = new java.util.Random(42);
        for (int round = 0; round < 2_000; round++) {
            byte[] b = new byte[random.nextInt(40)];
            for (int i = 0; i < b.length; i++) {
                // Every byte value but the newline, high bytes of UTF-8 sequences included.
                do {
                    b[i] = (byte) random.nextInt(256);
                } while (b[i] == '\n');
            }
            int newlines = b.length == 0 ? 0 : random.nextInt(3);
            for (int k = 0; k < newlines; k++) {
                b[random.nextInt(b.length)] = '\n';
            }
            int from = b.length == 0 ? 0 : random.nextInt(b.length);
            int to = from + random.nextInt(b.length - from + 1);
            int expected = -1;
            for (int i = from; i < to; i++) {
                if (b[i] == '\n') {
                    expected = i;
                    break;
                }
            }
            assertThat(LineFramer.indexOfNewline(b, from, to)).as("round %d", round).isEqualTo(expected);
        }
    }

    @Test
    void theLinesOfOneReadArriveAsOneBatch() throws IOException {
        List<List<String>> batches = new ArrayList<>();
        MessageSink sink = new MessageSink() {
            @Override
            public void onMessages(MessageBuffer messages) {
                List<String> batch = new ArrayList<>();
                for (int i = 0; i < messages.count(); i++) {
                    batch.add(messages.text(i));
                }
                batches.add(batch);
            }

            @Override
            public void onClosed(TransportTermination termination) {
            }
        };
        byte[] data = utf8("{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n{\"d\"");
        // First read: three whole lines and the start of a fourth; second read: its end, no newline.
        new LineFramer(CAP, sink).readAll(new ChunkedInput(data, 26, 100));

        assertThat(batches).containsExactly(List.of("{\"a\":1}", "{\"b\":2}", "{\"c\":3}"), List.of("{\"d\""));
    }
}
