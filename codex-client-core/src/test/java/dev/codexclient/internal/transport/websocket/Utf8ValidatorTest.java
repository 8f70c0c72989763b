package dev.codexclient.internal.transport.websocket;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class Utf8ValidatorTest {

    @Test
    void agreesWithTheJdkDecoderOnRandomBytesSplitAnywhere() {
        SplittableRandom random = new SplittableRandom(6455);
        // Bytes drawn mostly from the interesting ranges: ASCII, continuation bytes, lead bytes, invalid bytes.
        int[] pool = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC,
            0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF};
        int valid = 0;
        for (int round = 0; round < 20_000; round++) {
            byte[] bytes = new byte[1 + random.nextInt(6)];
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = (byte) pool[random.nextInt(pool.length)];
            }
            boolean expected = jdkAccepts(bytes);
            valid += expected ? 1 : 0;
            int cut = random.nextInt(bytes.length + 1);
            Utf8Validator v = new Utf8Validator();
            boolean actual = v.feed(bytes, 0, cut) && v.feed(bytes, cut, bytes.length - cut) && v.atBoundary();
            if (actual != expected) {
                throw new AssertionError(hex(bytes) + " cut at " + cut + ": expected " + expected);
            }
        }
        assertThat(valid).as("the sample holds valid sequences too").isGreaterThan(200);
    }

    @Test
    void knownEdgeCases() {
        assertThat(Utf8Validator.isValid("é€𝄞 \u007F\uFFFF\uD7FF\uE000".getBytes(StandardCharsets.UTF_8))).isTrue();
        assertThat(Utf8Validator.isValid(new byte[] {(byte) 0xF4, (byte) 0x8F, (byte) 0xBF, (byte) 0xBF})).isTrue();
        // U+110000, an overlong '/', a surrogate, a lone continuation byte, a truncated sequence.
        assertThat(Utf8Validator.isValid(new byte[] {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80})).isFalse();
        assertThat(Utf8Validator.isValid(new byte[] {(byte) 0xC0, (byte) 0xAF})).isFalse();
        assertThat(Utf8Validator.isValid(new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80})).isFalse();
        assertThat(Utf8Validator.isValid(new byte[] {(byte) 0x80})).isFalse();
        assertThat(Utf8Validator.isValid(new byte[] {(byte) 0xE2, (byte) 0x82})).isFalse();
    }

    private static final CharsetDecoder DECODER = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);

    private static boolean jdkAccepts(byte[] bytes) {
        try {
            DECODER.reset().decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    private static String hex(byte[] bytes) {
        StringBuilder sb = new StringBuilder();
        for (byte b : bytes) {
            sb.append(String.format("%02X ", b & 0xFF));
        }
        return sb.toString().trim();
    }
}
