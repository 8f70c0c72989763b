package dev.codexclient.internal.transport;

import dev.codexclient.internal.Redactor;

/** The wording both WebSocket connections use for the same events, so a user reads the same thing over either. */
public final class WebSocketMessages {

    private WebSocketMessages() {
    }

    /**
     * The opening handshake got a status other than 101. codex explains a 401 in the body ("expired websocket
     * jwt", "websocket jwt audience mismatch", ...); the body is shown bounded, on one line and redacted.
     */
    public static String handshakeRefused(String description, int status, String body, Redactor redactor) {
        String hint = status == 401 || status == 403
                ? " (the server rejected the credentials; check the bearer token)" : "";
        String detail = oneLine(body == null ? "" : body, 200);
        return "WebSocket handshake with " + description + " failed with HTTP " + status + hint
                + (detail.isEmpty() ? "" : ": " + redactor.redact(detail));
    }

    /** The reason of a termination the server asked for with a close frame. */
    public static String serverClosed(int status, String reason) {
        return "the server closed the WebSocket (status " + status
                + (reason == null || reason.isEmpty() ? "" : ": " + reason) + ")";
    }

    /** {@code text} cut to {@code max} characters, control characters (line breaks included) turned into spaces. */
    static String oneLine(String text, int max) {
        StringBuilder sb = new StringBuilder(Math.min(text.length(), max));
        for (int i = 0; i < text.length() && sb.length() < max; i++) {
            char c = text.charAt(i);
            sb.append(Character.isISOControl(c) ? ' ' : c);
        }
        return sb.toString().strip();
    }
}
