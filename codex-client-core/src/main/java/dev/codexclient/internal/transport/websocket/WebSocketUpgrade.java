package dev.codexclient.internal.transport.websocket;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;

/**
 * The client side of the opening handshake (RFC 6455 section 4.1), without I/O: the upgrade request, and the
 * parsing and checking of the server's answer.
 */
final class WebSocketUpgrade {

    /** The header in which codex names the largest frame it accepts (its socket closes past it). */
    static final String MAX_FRAME_HEADER = "x-codex-websocket-max-unfragmented-message-bytes";

    /** A response head longer than this is not a WebSocket server talking. */
    static final int MAX_HEAD_BYTES = 16 * 1024;

    private static final String GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

    /** The answer's status line and headers; header names lower-cased, values in order of appearance. */
    record Response(int status, String reasonPhrase, Map<String, List<String>> headers) {
        Optional<String> header(String name) {
            List<String> values = headers.get(name);
            return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
        }
    }

    /** Why the answer is not an acceptable upgrade. */
    static final class Rejected extends Exception {
        private static final long serialVersionUID = 1L;

        Rejected(String message) {
            super(message);
        }
    }

    private final String key;

    WebSocketUpgrade(Random random) {
        byte[] nonce = new byte[16];
        random.nextBytes(nonce);
        this.key = Base64.getEncoder().encodeToString(nonce);
    }

    /** The {@code Sec-WebSocket-Key} this handshake sends. */
    String key() {
        return key;
    }

    /**
     * The upgrade request. No {@code Origin}: codex refuses upgrades that carry one (a browser page must not reach
     * it), and this is not a browser.
     */
    byte[] request(String host, String path, Optional<String> bearerToken) {
        StringBuilder sb = new StringBuilder(256)
                .append("GET ").append(path).append(" HTTP/1.1\r\n")
                .append("Host: ").append(host).append("\r\n")
                .append("Upgrade: websocket\r\n")
                .append("Connection: Upgrade\r\n")
                .append("Sec-WebSocket-Key: ").append(key).append("\r\n")
                .append("Sec-WebSocket-Version: 13\r\n");
        bearerToken.ifPresent(token -> sb.append("Authorization: Bearer ").append(token).append("\r\n"));
        sb.append("\r\n");
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Parses the response head if {@code in} (position to limit) holds all of it; consumes it and returns the
     * response, or returns empty and consumes nothing.
     *
     * @throws Rejected when the head is malformed or longer than {@value #MAX_HEAD_BYTES} bytes
     */
    static Optional<Response> parse(ByteBuffer in) throws Rejected {
        int start = in.position();
        int end = -1;
        for (int i = start; i + 3 < in.limit(); i++) {
            if (in.get(i) == '\r' && in.get(i + 1) == '\n' && in.get(i + 2) == '\r' && in.get(i + 3) == '\n') {
                end = i;
                break;
            }
        }
        if (end < 0) {
            if (in.remaining() > MAX_HEAD_BYTES) {
                throw new Rejected("the server's answer has no end of headers within " + MAX_HEAD_BYTES + " bytes");
            }
            return Optional.empty();
        }
        byte[] head = new byte[end - start];
        in.get(head);
        in.position(end + 4);
        String[] lines = new String(head, StandardCharsets.ISO_8859_1).split("\r\n");
        String statusLine = lines[0];
        if (!statusLine.startsWith("HTTP/1.1 ") || statusLine.length() < 12) {
            throw new Rejected("the server did not answer with HTTP/1.1: " + printable(statusLine));
        }
        int status;
        try {
            status = Integer.parseInt(statusLine.substring(9, 12));
        } catch (NumberFormatException e) {
            throw new Rejected("the server's status line is malformed: " + printable(statusLine));
        }
        String reason = statusLine.length() > 13 ? statusLine.substring(13) : "";
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon <= 0) {
                throw new Rejected("the server sent a malformed header line: " + printable(lines[i]));
            }
            String name = lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT);
            headers.computeIfAbsent(name, n -> new ArrayList<>()).add(lines[i].substring(colon + 1).trim());
        }
        return Optional.of(new Response(status, reason, headers));
    }

    /**
     * Checks a {@code 101} answer (section 4.1, "the client MUST fail the connection if ..."), and returns the
     * largest frame the server accepts when it says so.
     */
    OptionalInt accept(Response response) throws Rejected {
        if (!response.header("upgrade").map(v -> v.equalsIgnoreCase("websocket")).orElse(false)) {
            throw new Rejected("the server's 101 answer lacks \"Upgrade: websocket\"");
        }
        boolean upgrade = false;
        for (String value : response.headers().getOrDefault("connection", List.of())) {
            for (String token : value.split(",")) {
                upgrade |= token.trim().equalsIgnoreCase("upgrade");
            }
        }
        if (!upgrade) {
            throw new Rejected("the server's 101 answer lacks \"Connection: Upgrade\"");
        }
        String accept = response.header("sec-websocket-accept").orElse("");
        if (!accept.equals(acceptFor(key))) {
            throw new Rejected("the server's Sec-WebSocket-Accept does not match the key sent");
        }
        if (response.headers().containsKey("sec-websocket-extensions")) {
            throw new Rejected("the server chose an extension although none was offered");
        }
        if (response.headers().containsKey("sec-websocket-protocol")) {
            throw new Rejected("the server chose a subprotocol although none was offered");
        }
        Optional<String> maxFrame = response.header(MAX_FRAME_HEADER);
        if (maxFrame.isPresent()) {
            try {
                long value = Long.parseLong(maxFrame.get());
                if (value > 0) {
                    return OptionalInt.of((int) Math.min(Integer.MAX_VALUE, value));
                }
            } catch (NumberFormatException e) {
                // A value we cannot read is a hint we cannot use, not a reason to refuse the connection.
            }
        }
        return OptionalInt.empty();
    }

    /** {@code base64(SHA-1(key + GUID))}, what the server must answer for {@code key}. */
    static String acceptFor(String key) {
        try {
            MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
            return Base64.getEncoder().encodeToString(sha1.digest((key + GUID).getBytes(StandardCharsets.US_ASCII)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every Java platform", e);
        }
    }

    /** At most 200 characters of {@code s}, control characters replaced: server text bound for a message. */
    static String printable(String s) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length() && sb.length() < 200; i++) {
            char c = s.charAt(i);
            sb.append(c < 0x20 || c == 0x7F ? ' ' : c);
        }
        return sb.toString().strip();
    }
}
