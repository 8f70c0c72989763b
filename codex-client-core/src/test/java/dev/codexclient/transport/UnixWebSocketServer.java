package dev.codexclient.transport;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Just enough of an RFC 6455 server on a Unix domain socket to script frames at a client, byte for byte: one
 * connection, no extensions, nothing checked that a test does not check itself.
 */
final class UnixWebSocketServer implements AutoCloseable {

    static final int CONTINUATION = 0;
    static final int TEXT = 1;
    static final int BINARY = 2;
    static final int CLOSE = 8;
    static final int PING = 9;
    static final int PONG = 10;

    /** A frame read from the client, unmasked. */
    record Frame(int opcode, boolean fin, boolean masked, byte[] payload) {
        String text() {
            return new String(payload, StandardCharsets.UTF_8);
        }

        int closeCode() {
            return payload.length < 2 ? 1005 : ((payload[0] & 0xFF) << 8) | (payload[1] & 0xFF);
        }
    }

    private final Path path;
    private final ServerSocketChannel server;
    private SocketChannel channel;
    private final ByteBuffer in = ByteBuffer.allocate(1 << 20).flip();
    final Map<String, String> requestHeaders = new LinkedHashMap<>();
    String requestLine;

    UnixWebSocketServer(Path directory) throws IOException {
        path = directory.resolve("ws-" + System.nanoTime() + ".sock");
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(path));
    }

    Path path() {
        return path;
    }

    /**
     * Runs {@code task} on a thread of its own. Not the common pool: on two cores it may have one thread, and an
     * accept and a connect queued behind each other would wait forever.
     */
    static CompletableFuture<Void> async(Runnable task) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                task.run();
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        }, "unix-ws-test");
        t.setDaemon(true);
        t.start();
        return done;
    }

    /** Accepts in the background; the future completes once the request head has been read. */
    CompletableFuture<Void> acceptAsync() {
        return async(() -> {
            try {
                channel = server.accept();
                String head = readHead();
                String[] lines = head.split("\r\n");
                requestLine = lines[0];
                for (int i = 1; i < lines.length; i++) {
                    int colon = lines[i].indexOf(':');
                    requestHeaders.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                            lines[i].substring(colon + 1).trim());
                }
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
    }

    /** Answers the handshake as a server that agrees to upgrade, with extra header lines (each ending in CRLF). */
    void upgrade(String extraHeaders) throws IOException {
        write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: " + acceptKey(requestHeaders.get("sec-websocket-key")) + "\r\n"
                + extraHeaders + "\r\n").getBytes(StandardCharsets.US_ASCII));
    }

    /** Accepts, waits for the request and upgrades: for tests about what follows the handshake. */
    void acceptAndUpgrade(UnixSocketTransport transport, MessageSink sink, String extraHeaders) throws Exception {
        CompletableFuture<Void> accepted = acceptAsync();
        CompletableFuture<Void> started = async(() -> transport.start(sink));
        accepted.get(5, TimeUnit.SECONDS);
        upgrade(extraHeaders);
        started.get(5, TimeUnit.SECONDS);
    }

    void write(byte[] bytes) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        while (b.hasRemaining()) {
            channel.write(b);
        }
    }

    /** Encodes a server frame; {@code masked} makes it illegal, for tests of the client's checks. */
    static byte[] frame(int firstByte, byte[] payload, boolean masked) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(firstByte);
        int maskBit = masked ? 0x80 : 0;
        if (payload.length < 126) {
            out.write(maskBit | payload.length);
        } else if (payload.length < 65536) {
            out.write(maskBit | 126);
            out.write(payload.length >>> 8);
            out.write(payload.length & 0xFF);
        } else {
            out.write(maskBit | 127);
            long len = payload.length;
            for (int i = 7; i >= 0; i--) {
                out.write((int) (len >>> (8 * i)) & 0xFF);
            }
        }
        byte[] body = payload.clone();
        if (masked) {
            byte[] mask = {1, 2, 3, 4};
            out.write(mask, 0, 4);
            for (int i = 0; i < body.length; i++) {
                body[i] ^= mask[i & 3];
            }
        }
        out.write(body, 0, body.length);
        return out.toByteArray();
    }

    static byte[] frame(int opcode, boolean fin, byte[] payload) {
        return frame((fin ? 0x80 : 0) | opcode, payload, false);
    }

    void sendFrame(int opcode, boolean fin, byte[] payload) throws IOException {
        write(frame(opcode, fin, payload));
    }

    void sendText(String text) throws IOException {
        sendFrame(TEXT, true, text.getBytes(StandardCharsets.UTF_8));
    }

    static byte[] closePayload(int code, String reason) {
        byte[] r = reason.getBytes(StandardCharsets.UTF_8);
        byte[] payload = new byte[2 + r.length];
        payload[0] = (byte) (code >>> 8);
        payload[1] = (byte) code;
        System.arraycopy(r, 0, payload, 2, r.length);
        return payload;
    }

    void sendClose(int code, String reason) throws IOException {
        sendFrame(CLOSE, true, closePayload(code, reason));
    }

    /** Reads one client frame, unmasking it. */
    Frame readFrame() throws IOException {
        need(2);
        int b0 = in.get() & 0xFF;
        int b1 = in.get() & 0xFF;
        long len = b1 & 0x7F;
        if (len == 126) {
            need(2);
            len = in.getShort() & 0xFFFF;
        } else if (len == 127) {
            need(8);
            len = in.getLong();
        }
        boolean masked = (b1 & 0x80) != 0;
        byte[] mask = new byte[4];
        if (masked) {
            need(4);
            in.get(mask);
        }
        byte[] payload = new byte[(int) len];
        int done = 0;
        while (done < payload.length) {
            need(1);
            int n = Math.min(in.remaining(), payload.length - done);
            in.get(payload, done, n);
            done += n;
        }
        for (int i = 0; i < payload.length; i++) {
            payload[i] ^= mask[i & 3];
        }
        return new Frame(b0 & 0x0F, (b0 & 0x80) != 0, masked, payload);
    }

    /** Reads client frames until a data or close frame (pongs are skipped). */
    Frame readDataFrame() throws IOException {
        while (true) {
            Frame f = readFrame();
            if (f.opcode() != PONG && f.opcode() != PING) {
                return f;
            }
        }
    }

    /** Reads a whole client message, reassembling its fragments. */
    String readMessage() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while (true) {
            Frame f = readDataFrame();
            out.write(f.payload(), 0, f.payload().length);
            if (f.fin()) {
                return out.toString(StandardCharsets.UTF_8);
            }
        }
    }

    /** Whether the client closed its end: the next read sees end of stream. */
    boolean clientClosedConnection() throws IOException {
        try {
            while (true) {
                need(1);
                in.get();
            }
        } catch (EOFException e) {
            return true;
        }
    }

    void closeConnection() throws IOException {
        if (channel != null) {
            channel.close();
        }
    }

    @Override
    public void close() throws IOException {
        closeConnection();
        server.close();
        Files.deleteIfExists(path);
    }

    private void need(int n) throws IOException {
        while (in.remaining() < n) {
            in.compact();
            int r = channel.read(in);
            in.flip();
            if (r < 0) {
                throw new EOFException("client closed the connection");
            }
        }
    }

    private String readHead() throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        byte[] end = {'\r', '\n', '\r', '\n'};
        while (matched < 4) {
            need(1);
            int c = in.get();
            head.write(c);
            matched = c == end[matched] ? matched + 1 : (c == '\r' ? 1 : 0);
        }
        String s = head.toString(StandardCharsets.US_ASCII);
        return s.substring(0, s.length() - 4);
    }

    static String acceptKey(String key) {
        try {
            MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
            return Base64.getEncoder().encodeToString(sha1.digest((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")
                    .getBytes(StandardCharsets.US_ASCII)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
