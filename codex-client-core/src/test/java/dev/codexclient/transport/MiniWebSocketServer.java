package dev.codexclient.transport;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** Just enough of RFC 6455 to script frames at a client: one connection, no extensions. */
final class MiniWebSocketServer implements AutoCloseable {

    static final int TEXT = 1;
    static final int BINARY = 2;
    static final int CONTINUATION = 0;
    static final int CLOSE = 8;
    static final int PING = 9;

    /** A frame read from the client. */
    record Frame(int opcode, boolean fin, byte[] payload) {
        String text() {
            return new String(payload, StandardCharsets.UTF_8);
        }
    }

    private final ServerSocket server;
    private Socket socket;
    private DataInputStream in;
    private OutputStream out;
    final Map<String, String> requestHeaders = new LinkedHashMap<>();

    MiniWebSocketServer() throws IOException {
        server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    }

    URI uri() {
        return URI.create("ws://127.0.0.1:" + server.getLocalPort() + "/");
    }

    /** Accepts the client and completes the opening handshake, or answers {@code status} to refuse it. */
    void accept(int status) throws IOException {
        server.setSoTimeout(10_000);
        socket = server.accept();
        socket.setSoTimeout(10_000);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
        String request = readHeaders(in);
        for (String line : request.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                requestHeaders.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT),
                        line.substring(colon + 1).trim());
            }
        }
        if (status != 101) {
            out.write(("HTTP/1.1 " + status + " Refused\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            socket.close();
            return;
        }
        String accept = acceptKey(requestHeaders.get("sec-websocket-key"));
        out.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: " + accept + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    void sendFrame(int opcode, boolean fin, byte[] payload) throws IOException {
        ByteArrayOutputStream frame = new ByteArrayOutputStream();
        frame.write((fin ? 0x80 : 0) | opcode);
        if (payload.length < 126) {
            frame.write(payload.length);
        } else if (payload.length < 65536) {
            frame.write(126);
            frame.write(payload.length >>> 8);
            frame.write(payload.length & 0xff);
        } else {
            frame.write(127);
            long len = payload.length;
            for (int i = 7; i >= 0; i--) {
                frame.write((int) (len >>> (8 * i)) & 0xff);
            }
        }
        frame.write(payload);
        out.write(frame.toByteArray());
        out.flush();
    }

    void sendText(String text) throws IOException {
        sendFrame(TEXT, true, text.getBytes(StandardCharsets.UTF_8));
    }

    void sendClose(int code, String reason) throws IOException {
        byte[] r = reason.getBytes(StandardCharsets.UTF_8);
        byte[] payload = new byte[2 + r.length];
        payload[0] = (byte) (code >>> 8);
        payload[1] = (byte) code;
        System.arraycopy(r, 0, payload, 2, r.length);
        sendFrame(CLOSE, true, payload);
    }

    /** Reads one client frame (unmasking it). */
    Frame readFrame() throws IOException {
        int b0 = in.readUnsignedByte();
        int b1 = in.readUnsignedByte();
        long len = b1 & 0x7f;
        if (len == 126) {
            len = in.readUnsignedShort();
        } else if (len == 127) {
            len = in.readLong();
        }
        byte[] mask = new byte[4];
        if ((b1 & 0x80) != 0) {
            in.readFully(mask);
        }
        byte[] payload = new byte[(int) len];
        in.readFully(payload);
        for (int i = 0; i < payload.length; i++) {
            payload[i] ^= mask[i % 4];
        }
        return new Frame(b0 & 0x0f, (b0 & 0x80) != 0, payload);
    }

    /** Reads client frames until a data frame arrives; answers nothing. */
    Frame readDataFrame() throws IOException {
        while (true) {
            Frame f = readFrame();
            if (f.opcode() == TEXT || f.opcode() == BINARY || f.opcode() == CLOSE) {
                return f;
            }
        }
    }

    @Override
    public void close() throws IOException {
        if (socket != null) {
            socket.close();
        }
        server.close();
    }

    private static String readHeaders(InputStream in) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int matched = 0;
        byte[] end = {'\r', '\n', '\r', '\n'};
        while (matched < 4) {
            int c = in.read();
            if (c < 0) {
                throw new IOException("client went away during the handshake");
            }
            buf.write(c);
            matched = c == end[matched] ? matched + 1 : (c == '\r' ? 1 : 0);
        }
        return buf.toString(StandardCharsets.US_ASCII);
    }

    private static String acceptKey(String key) {
        try {
            MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
            byte[] digest = sha1.digest((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")
                    .getBytes(StandardCharsets.US_ASCII));
            return Base64.getEncoder().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
