package dev.codexclient.internal.transport.websocket;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Turns the bytes a WebSocket server sends into messages and control frames (RFC 6455 section 5), incrementally:
 * {@link #feed} takes whatever one read produced, consumes every complete frame header and every payload byte it
 * can, and leaves an incomplete header in the buffer for the next read.
 *
 * <p>Data frames are reassembled into messages as their payload streams by, so a frame is never buffered twice. A
 * message longer than the cap is discarded as it arrives (its bytes are counted, never stored) and reported as
 * oversized; text messages are checked to be UTF-8 across fragment boundaries. Everything RFC 6455 says a client
 * must fail the connection for is reported as a {@link WebSocketProtocolException}: reserved bits without an
 * extension, a masked server frame, an unknown opcode, a fragmented or overlong control frame, a continuation
 * without a message (or a new message inside one), invalid UTF-8, a malformed close frame.
 *
 * <p>Not thread-safe: owned by the reader thread of one connection.
 */
final class FrameReader {

    static final int CONTINUATION = 0x0;
    static final int TEXT = 0x1;
    static final int BINARY = 0x2;
    static final int CLOSE = 0x8;
    static final int PING = 0x9;
    static final int PONG = 0xA;

    /** The close status a close frame without a payload stands for; never sent on the wire. */
    static final int NO_STATUS = 1005;

    private static final int MAX_CONTROL_PAYLOAD = 125;
    private static final int MIN_GROWABLE_CAPACITY = 4096;

    /** What the frames mean; called on the thread that calls {@link #feed}. */
    interface Events {
        /** A complete text or binary message; the array is handed over. */
        void message(byte[] payload);

        /** A message longer than the cap was discarded. */
        void oversized(long length);

        /** A ping; the connection answers it with a pong carrying the same payload. */
        void ping(byte[] payload);

        /** A close frame: {@code code} is {@link #NO_STATUS} when the frame carried none. */
        void close(int code, String reason);
    }

    private final int maxMessageBytes;

    // The frame being read.
    private boolean inFrame;
    private int opcode;
    private boolean fin;
    private long payloadLeft;
    private byte[] control;
    private int controlLength;

    // The data message being assembled (possibly across fragments).
    private boolean inMessage;
    private boolean text;
    private byte[] message;
    private int messageLength;
    /** Bytes of the message so far, including discarded ones. */
    private long total;
    private boolean discarding;
    private final Utf8Validator utf8 = new Utf8Validator();

    private boolean closed;

    /** @param maxMessageBytes the longest message delivered; longer ones are reported as oversized */
    FrameReader(int maxMessageBytes) {
        this.maxMessageBytes = maxMessageBytes;
    }

    /** Whether a close frame was read; nothing after it is consumed. */
    boolean closeReceived() {
        return closed;
    }

    /**
     * Consumes what it can of {@code in} (between its position and limit). On return, the bytes left in {@code in}
     * are an incomplete frame header, or whatever followed a close frame.
     */
    void feed(ByteBuffer in, Events events) throws WebSocketProtocolException {
        while (!closed) {
            if (!inFrame) {
                if (!readHeader(in)) {
                    return;
                }
            }
            if (payloadLeft > 0) {
                if (!in.hasRemaining()) {
                    return;
                }
                int n = (int) Math.min(in.remaining(), payloadLeft);
                if (isControl(opcode)) {
                    in.get(control, controlLength, n);
                    controlLength += n;
                } else {
                    append(in, n);
                }
                payloadLeft -= n;
                if (payloadLeft > 0) {
                    return;
                }
            }
            inFrame = false;
            if (isControl(opcode)) {
                controlFrame(events);
            } else if (fin) {
                messageComplete(events);
            }
        }
    }

    /** Parses a frame header if all of it is there; false (consuming nothing) otherwise. */
    private boolean readHeader(ByteBuffer in) throws WebSocketProtocolException {
        int start = in.position();
        if (in.remaining() < 2) {
            return false;
        }
        int b0 = in.get(start) & 0xFF;
        int b1 = in.get(start + 1) & 0xFF;
        int lengthBytes = (b1 & 0x7F) == 126 ? 2 : (b1 & 0x7F) == 127 ? 8 : 0;
        if (in.remaining() < 2 + lengthBytes) {
            return false;
        }
        if ((b0 & 0x70) != 0) {
            throw protocol("a frame with reserved bits set (no extension was negotiated)");
        }
        if ((b1 & 0x80) != 0) {
            throw protocol("a masked frame (servers must not mask)");
        }
        boolean frameFin = (b0 & 0x80) != 0;
        int frameOpcode = b0 & 0x0F;
        long length = b1 & 0x7F;
        if (lengthBytes == 2) {
            length = in.getShort(start + 2) & 0xFFFF;
        } else if (lengthBytes == 8) {
            length = in.getLong(start + 2);
            if (length < 0) {
                throw protocol("a frame length with the most significant bit set");
            }
        }
        switch (frameOpcode) {
            case CONTINUATION:
                if (!inMessage) {
                    throw protocol("a continuation frame outside a fragmented message");
                }
                break;
            case TEXT:
            case BINARY:
                if (inMessage) {
                    throw protocol("a new data frame before the fragmented message was finished");
                }
                break;
            case CLOSE:
            case PING:
            case PONG:
                if (!frameFin) {
                    throw protocol("a fragmented control frame");
                }
                if (length > MAX_CONTROL_PAYLOAD) {
                    throw protocol("a control frame of " + length + " bytes (at most 125 are allowed)");
                }
                break;
            default:
                throw protocol("a frame with the unknown opcode 0x" + Integer.toHexString(frameOpcode));
        }
        in.position(start + 2 + lengthBytes);
        inFrame = true;
        opcode = frameOpcode;
        fin = frameFin;
        payloadLeft = length;
        if (isControl(frameOpcode)) {
            control = new byte[(int) length];
            controlLength = 0;
        } else if (frameOpcode != CONTINUATION) {
            startMessage(frameOpcode == TEXT, length, frameFin);
        }
        return true;
    }

    private void startMessage(boolean isText, long firstFrameLength, boolean single) {
        inMessage = true;
        text = isText;
        total = 0;
        messageLength = 0;
        discarding = false;
        utf8.reset();
        if (firstFrameLength > maxMessageBytes) {
            message = null;
            discarding = true;
        } else if (single) {
            // The common case: one frame whose length is the message's; no growing, no trimming copy.
            message = new byte[(int) firstFrameLength];
        } else {
            message = new byte[(int) Math.min(maxMessageBytes, Math.max(MIN_GROWABLE_CAPACITY, firstFrameLength))];
        }
    }

    private void append(ByteBuffer in, int n) throws WebSocketProtocolException {
        total += n;
        if (!discarding && total > maxMessageBytes) {
            discarding = true;
            message = null;
        }
        if (discarding) {
            in.position(in.position() + n);
            return;
        }
        if (messageLength + n > message.length) {
            long wanted = Math.max((long) messageLength + n, 2L * message.length);
            message = Arrays.copyOf(message, (int) Math.min(maxMessageBytes, wanted));
        }
        in.get(message, messageLength, n);
        if (text && !utf8.feed(message, messageLength, n)) {
            throw new WebSocketProtocolException(WebSocketProtocolException.INVALID_PAYLOAD,
                    "the server sent a text message that is not valid UTF-8");
        }
        messageLength += n;
    }

    private void messageComplete(Events events) throws WebSocketProtocolException {
        inMessage = false;
        if (discarding) {
            discarding = false;
            events.oversized(total);
            return;
        }
        if (text && !utf8.atBoundary()) {
            throw new WebSocketProtocolException(WebSocketProtocolException.INVALID_PAYLOAD,
                    "the server sent a text message that ends inside a UTF-8 sequence");
        }
        byte[] complete = messageLength == message.length ? message : Arrays.copyOf(message, messageLength);
        message = null;
        events.message(complete);
    }

    private void controlFrame(Events events) throws WebSocketProtocolException {
        byte[] payload = control;
        control = null;
        switch (opcode) {
            case PING:
                events.ping(payload);
                break;
            case PONG:
                break;
            case CLOSE:
                closed = true;
                if (payload.length == 0) {
                    events.close(NO_STATUS, "");
                    return;
                }
                if (payload.length == 1) {
                    throw protocol("a close frame with a one-byte payload");
                }
                int code = ((payload[0] & 0xFF) << 8) | (payload[1] & 0xFF);
                if (!isValidCloseCode(code)) {
                    throw protocol("a close frame with the invalid status " + code);
                }
                byte[] reason = Arrays.copyOfRange(payload, 2, payload.length);
                if (!Utf8Validator.isValid(reason)) {
                    throw new WebSocketProtocolException(WebSocketProtocolException.INVALID_PAYLOAD,
                            "the server sent a close reason that is not valid UTF-8");
                }
                events.close(code, new String(reason, StandardCharsets.UTF_8));
                break;
            default:
                throw new IllegalStateException("not a control opcode: " + opcode);
        }
    }

    /**
     * Status codes a peer may send (RFC 6455 section 7.4 and the IANA registry): 1004, 1005, 1006 and 1015 are
     * reserved for local use and never appear on the wire.
     */
    static boolean isValidCloseCode(int code) {
        return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);
    }

    private static boolean isControl(int opcode) {
        return (opcode & 0x08) != 0;
    }

    private static WebSocketProtocolException protocol(String what) {
        return new WebSocketProtocolException(WebSocketProtocolException.PROTOCOL_ERROR, "the server sent " + what);
    }
}
