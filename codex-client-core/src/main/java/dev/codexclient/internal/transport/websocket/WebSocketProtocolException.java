package dev.codexclient.internal.transport.websocket;

import java.io.IOException;

/**
 * The server broke RFC 6455 (a masked frame, bad UTF-8 in a text message, an unknown opcode, ...): the connection
 * must be failed, telling the server why with {@link #closeCode()}.
 */
final class WebSocketProtocolException extends IOException {
    private static final long serialVersionUID = 1L;

    /** 1002: the peer violated the protocol. */
    static final int PROTOCOL_ERROR = 1002;
    /** 1007: a text message or close reason was not valid UTF-8. */
    static final int INVALID_PAYLOAD = 1007;

    private final int closeCode;

    WebSocketProtocolException(int closeCode, String message) {
        super(message);
        this.closeCode = closeCode;
    }

    /** The status code to send in the close frame that fails the connection. */
    int closeCode() {
        return closeCode;
    }
}
