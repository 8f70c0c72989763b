package dev.codexclient.internal.rpc;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.base.ParserBase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The byte offset of a parser's current token, as its location gives it ({@link JsonParser#currentTokenLocation()}),
 * without making a {@code JsonLocation} for every message: {@link ParserBase#getTokenCharacterOffset()} plus a
 * shift. Jackson does not document how the two relate (they differ by one in the versions this was written
 * against), so the shift is learnt on a probe shaped like the codec's input (a parser from an offset into an array,
 * values on successive lines) and used only when every token of the probe agrees on it; member names are left to
 * the location, which takes theirs from another field. Otherwise every offset comes from the location.
 */
final class TokenOffsets {
    static final long NO_SHIFT = Long.MIN_VALUE;

    private final long shift;

    private TokenOffsets(long shift) {
        this.shift = shift;
    }

    static TokenOffsets of(JsonFactory factory) {
        return new TokenOffsets(shift(factory));
    }

    /** The byte offset of {@code p}'s current token, from where {@code p} started. */
    long of(JsonParser p) {
        if (shift != NO_SHIFT && p instanceof ParserBase b && p.currentToken() != JsonToken.FIELD_NAME) {
            return b.getTokenCharacterOffset() + shift;
        }
        return p.currentTokenLocation().getByteOffset();
    }

    /** What to add to the token offset of {@code factory}'s parsers, or {@link #NO_SHIFT}. */
    static long shift(JsonFactory factory) {
        byte[] probe = "#{\"method\":\"m\",\"params\":[1,{}]}\n  {\"id\":2}\n".getBytes(StandardCharsets.UTF_8);
        Long shift = null;
        try (JsonParser p = factory.createParser(probe, 1, probe.length - 1)) {
            if (!(p instanceof ParserBase b)) {
                return NO_SHIFT;
            }
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                if (t == JsonToken.FIELD_NAME) {
                    continue;
                }
                long location = p.currentTokenLocation().getByteOffset();
                long s = location - b.getTokenCharacterOffset();
                if (location < 0 || probe[1 + (int) location] != firstByte(t, probe[1 + (int) location])
                        || (shift != null && shift != s)) {
                    return NO_SHIFT;
                }
                shift = s;
            }
        } catch (IOException | RuntimeException e) {
            return NO_SHIFT;
        }
        return shift == null ? NO_SHIFT : shift;
    }

    /** The byte a token of type {@code t} starts with ({@code actual} for a number, whose digit varies). */
    private static byte firstByte(JsonToken t, byte actual) {
        return switch (t) {
            case START_OBJECT -> '{';
            case END_OBJECT -> '}';
            case START_ARRAY -> '[';
            case END_ARRAY -> ']';
            case VALUE_STRING -> '"';
            default -> actual;
        };
    }
}
