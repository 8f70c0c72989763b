package dev.codexclient.internal.transport.websocket;

/**
 * Checks, incrementally, that bytes form well-formed UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing
 * above U+10FFFF. A sequence may be split across calls, as it is across WebSocket fragments.
 *
 * <p>Not thread-safe: one per message being read.
 */
final class Utf8Validator {

    /** Continuation bytes still expected for the current sequence. */
    private int needed;
    /** Bounds for the next continuation byte; narrower than 0x80..0xBF right after some lead bytes. */
    private int lower = 0x80;
    private int upper = 0xBF;

    /**
     * Feeds {@code length} bytes of {@code bytes} from {@code offset}.
     *
     * @return false at the first byte that cannot occur where it does; the validator is then unusable until reset
     */
    boolean feed(byte[] bytes, int offset, int length) {
        int i = offset;
        int end = offset + length;
        while (i < end) {
            if (needed == 0) {
                // ASCII runs are by far the common case (JSON); skip them without touching the state.
                while (i < end && bytes[i] >= 0) {
                    i++;
                }
                if (i == end) {
                    return true;
                }
                int b = bytes[i++] & 0xFF;
                if (b >= 0xC2 && b <= 0xDF) {
                    needed = 1;
                } else if (b == 0xE0) {
                    needed = 2;
                    lower = 0xA0;
                } else if (b == 0xED) {
                    needed = 2;
                    upper = 0x9F;
                } else if (b >= 0xE1 && b <= 0xEF) {
                    needed = 2;
                } else if (b == 0xF0) {
                    needed = 3;
                    lower = 0x90;
                } else if (b >= 0xF1 && b <= 0xF3) {
                    needed = 3;
                } else if (b == 0xF4) {
                    needed = 3;
                    upper = 0x8F;
                } else {
                    return false;
                }
            } else {
                int b = bytes[i++] & 0xFF;
                if (b < lower || b > upper) {
                    return false;
                }
                lower = 0x80;
                upper = 0xBF;
                needed--;
            }
        }
        return true;
    }

    /** Whether the bytes fed so far end on a character boundary. */
    boolean atBoundary() {
        return needed == 0;
    }

    /** Forgets everything fed so far. */
    void reset() {
        needed = 0;
        lower = 0x80;
        upper = 0xBF;
    }

    /** Whether {@code bytes} as a whole is well-formed UTF-8. */
    static boolean isValid(byte[] bytes) {
        Utf8Validator v = new Utf8Validator();
        return v.feed(bytes, 0, bytes.length) && v.atBoundary();
    }
}
