package dev.codexclient.internal.rpc;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * A byte-level routing pass for the common notification shape, so the reader thread does not tokenize a line
 * that its lane will tokenize again for the typed decode.
 *
 * <p>It finds what {@link Envelope#scan} finds for a notification (method, id, {@code params.threadId} /
 * {@code params.thread.id}, {@code params.turnId} / {@code params.turn.id}) with the same precedence, but checks
 * only the structure of the top-level object and of {@code params}: inner values are skipped by bracket
 * matching. Whenever it is unsure (escaped or non-ASCII keys or routing values, unexpected structure, anything
 * that is not a notification, {@code serverRequest/resolved} which needs its request id) it returns {@code null}
 * and the caller takes the full {@link Envelope#scan}. A line it accepts may still be lexically malformed inside
 * a value; the lane's full parse finds that and drops the line, as the reader thread would have.
 */
final class FastRoute {
    private static final int MAX_DEPTH = 1000;

    private final byte[] b;
    private int i;

    private FastRoute(byte[] line) {
        this.b = line;
    }

    /** The envelope of a notification, or {@code null} when the full scan must decide. */
    static Envelope notification(byte[] line) {
        try {
            return new FastRoute(line).top();
        } catch (Unsure | ArrayIndexOutOfBoundsException e) {
            // Out of bounds: the line ended inside the object.
            return null;
        }
    }

    /** Thrown internally to give up; preallocated without a stack trace. */
    private static final class Unsure extends RuntimeException {
        static final Unsure INSTANCE = new Unsure();

        private Unsure() {
            super(null, null, false, false);
        }
    }

    private static Unsure unsure() {
        return Unsure.INSTANCE;
    }

    private Envelope top() {
        ws();
        expect('{');
        String method = null;
        boolean methodIsText = false;
        String threadId = null;
        String threadObjectId = null;
        String turnId = null;
        String turnObjectId = null;
        ws();
        if (b[i] == '}') {
            throw unsure();
        }
        while (true) {
            int keyStart = key();
            int keyEnd = i - 1;
            ws();
            expect(':');
            ws();
            byte c = b[i];
            if (is(keyStart, keyEnd, "method")) {
                methodIsText = c == '"';
                method = methodIsText ? plainString() : null;
                if (!methodIsText) {
                    skipValue();
                }
            } else if (is(keyStart, keyEnd, "id")) {
                if (!(c == 'n' && literal("null"))) {
                    // A request or a response (a later "id":null is the full scan's business): give up before
                    // walking what may be a large result.
                    throw unsure();
                }
            } else if (is(keyStart, keyEnd, "params")) {
                threadId = null;
                threadObjectId = null;
                turnId = null;
                turnObjectId = null;
                if (c == '{') {
                    i++;
                    ws();
                    if (b[i] == '}') {
                        i++;
                    } else {
                        while (true) {
                            int ks = key();
                            int ke = i - 1;
                            ws();
                            expect(':');
                            ws();
                            byte v = b[i];
                            if (is(ks, ke, "threadId")) {
                                threadId = v == '"' ? plainString() : null;
                                if (v != '"') {
                                    skipValue();
                                }
                            } else if (is(ks, ke, "turnId")) {
                                turnId = v == '"' ? plainString() : null;
                                if (v != '"') {
                                    skipValue();
                                }
                            } else if (is(ks, ke, "thread")) {
                                threadObjectId = v == '{' ? idMember() : skipToNull();
                            } else if (is(ks, ke, "turn")) {
                                turnObjectId = v == '{' ? idMember() : skipToNull();
                            } else if (is(ks, ke, "requestId")) {
                                throw unsure();
                            } else {
                                skipValue();
                            }
                            if (!comma()) {
                                break;
                            }
                        }
                    }
                } else {
                    skipValue();
                }
            } else {
                skipValue();
            }
            if (!comma()) {
                break;
            }
        }
        if (!methodIsText || "serverRequest/resolved".equals(method)) {
            throw unsure();
        }
        return new Envelope(method, true, false,
                Optional.ofNullable(threadId != null ? threadId : threadObjectId),
                Optional.ofNullable(turnId != null ? turnId : turnObjectId), Optional.empty(), null);
    }

    /** After a member: true on a comma (another member follows), false on the closing brace. */
    private boolean comma() {
        ws();
        byte c = b[i++];
        if (c == ',') {
            ws();
            return true;
        }
        if (c == '}') {
            return false;
        }
        throw unsure();
    }

    /** Reads an object to its end, returning its textual {@code id} member. */
    private String idMember() {
        i++;
        ws();
        if (b[i] == '}') {
            i++;
            return null;
        }
        String id = null;
        while (true) {
            int ks = key();
            int ke = i - 1;
            ws();
            expect(':');
            ws();
            if (is(ks, ke, "id")) {
                boolean text = b[i] == '"';
                id = text ? plainString() : null;
                if (!text) {
                    skipValue();
                }
            } else {
                skipValue();
            }
            if (!comma()) {
                return id;
            }
        }
    }

    private String skipToNull() {
        skipValue();
        return null;
    }

    /** A member name without escapes; returns its first byte's index and leaves {@code i} after the quote. */
    private int key() {
        expect('"');
        int start = i;
        while (true) {
            byte c = b[i++];
            if (c == '"') {
                return start;
            }
            if (c == '\\') {
                throw unsure();
            }
        }
    }

    /** A string value made of printable ASCII without escapes, as Jackson would decode it. */
    private String plainString() {
        byte[] b = this.b;
        int start = i + 1;
        int k = start;
        while (true) {
            byte c = b[k];
            if (c == '"') {
                i = k + 1;
                return new String(b, start, k - start, StandardCharsets.ISO_8859_1);
            }
            if (c == '\\' || c < 0x20) {
                // Negative bytes (non-ASCII) land here too.
                throw unsure();
            }
            k++;
        }
    }

    private boolean is(int start, int end, String name) {
        int n = name.length();
        if (end - start != n) {
            return false;
        }
        for (int k = 0; k < n; k++) {
            if (b[start + k] != name.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    private boolean literal(String word) {
        int n = word.length();
        for (int k = 0; k < n; k++) {
            if (b[i + k] != word.charAt(k)) {
                return false;
            }
        }
        i += n;
        return true;
    }

    /** Skips one value, matching brackets outside strings; the lane's parse checks what lies inside. */
    private void skipValue() {
        byte c = b[i];
        if (c == '"') {
            skipString();
            return;
        }
        if (c == '{' || c == '[') {
            int depth = 0;
            while (true) {
                c = b[i];
                if (c == '"') {
                    skipString();
                    continue;
                }
                i++;
                if (c == '{' || c == '[') {
                    if (++depth > MAX_DEPTH) {
                        throw unsure();
                    }
                } else if (c == '}' || c == ']') {
                    if (--depth == 0) {
                        return;
                    }
                }
            }
        }
        int start = i;
        while (true) {
            c = b[i];
            if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
                    || (c >= 'a' && c <= 'z')) {
                i++;
            } else {
                break;
            }
        }
        if (i == start) {
            throw unsure();
        }
    }

    private void skipString() {
        byte[] b = this.b;
        int k = i + 1;
        while (true) {
            byte c = b[k++];
            if (c == '"') {
                i = k;
                return;
            }
            if (c == '\\') {
                k++;
            }
        }
    }

    private void expect(char c) {
        if (b[i] != c) {
            throw unsure();
        }
        i++;
    }

    private void ws() {
        while (true) {
            byte c = b[i];
            if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
                i++;
            } else {
                return;
            }
        }
    }
}
