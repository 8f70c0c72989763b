package dev.codexclient.testkit.internal.fake;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Accepts relay children on a loopback port and turns each into a {@link ServerLink}. A random token in the
 * command line keeps unrelated local processes from attaching.
 */
public final class RelayServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RelayServer.class);
    private static final int HELLO_TIMEOUT_MS = 10_000;
    private static final int MAX_LINE = 256 * 1024 * 1024;

    private final ServerSocket serverSocket;
    private final String token;
    private final Consumer<ServerLink> onConnect;
    private final Set<RelayLink> links = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicInteger counter = new AtomicInteger();
    private final Thread acceptor;

    public RelayServer(Consumer<ServerLink> onConnect) {
        this.onConnect = onConnect;
        byte[] random = new byte[16];
        new SecureRandom().nextBytes(random);
        this.token = HexFormat.of().formatHex(random);
        try {
            this.serverSocket = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a loopback port for the relay", e);
        }
        acceptor = new Thread(this::acceptLoop, "codex-fake-relay-acceptor-" + serverSocket.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** The command that starts a relay child connected to this server. */
    public List<String> command() {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return List.of(java, "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx64m",
                "-cp", relayClassPath(), RelayMain.class.getName(),
                Integer.toString(serverSocket.getLocalPort()), token);
    }

    private static String relayClassPath() {
        try {
            var source = RelayMain.class.getProtectionDomain().getCodeSource();
            if (source != null && source.getLocation() != null) {
                return Path.of(source.getLocation().toURI()).toString();
            }
        } catch (URISyntaxException | IllegalArgumentException | SecurityException e) {
            LOG.debug("cannot locate the relay's code source; using the class path", e);
        }
        return System.getProperty("java.class.path", "") + File.pathSeparator;
    }

    private void acceptLoop() {
        while (!closed.get()) {
            try {
                Socket socket = serverSocket.accept();
                Thread handshake = new Thread(() -> handshake(socket),
                        "codex-fake-relay-handshake-" + counter.incrementAndGet());
                handshake.setDaemon(true);
                handshake.start();
            } catch (IOException e) {
                if (!closed.get()) {
                    LOG.warn("relay accept failed", e);
                }
                return;
            }
        }
    }

    private void handshake(Socket socket) {
        try {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(HELLO_TIMEOUT_MS);
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            byte type = in.readByte();
            int length = in.readInt();
            if (type != RelayMain.HELLO || length > 1024) {
                throw new IOException("not a relay hello");
            }
            byte[] payload = new byte[length];
            in.readFully(payload);
            String[] hello = new String(payload, StandardCharsets.UTF_8).split(" ");
            if (!hello[0].equals(token)) {
                throw new IOException("relay presented a wrong token");
            }
            socket.setSoTimeout(0);
            long pid = hello.length > 1 ? Long.parseLong(hello[1]) : -1;
            RelayLink link = new RelayLink(socket, in, pid);
            if (closed.get()) {
                link.exit(0);
                return;
            }
            links.add(link);
            onConnect.accept(link);
        } catch (IOException | RuntimeException e) {
            LOG.warn("rejected a relay connection: {}", e.toString());
            try {
                socket.close();
            } catch (IOException ignored) {
                // already failing
            }
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            serverSocket.close();
        } catch (IOException e) {
            LOG.debug("closing relay server socket", e);
        }
        for (RelayLink link : links) {
            link.exit(0);
        }
        try {
            acceptor.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One relay child. Writes are serialised on the socket stream. */
    private final class RelayLink implements ServerLink {
        private final Socket socket;
        private final DataInputStream in;
        private final DataOutputStream out;
        private final long pid;
        private final AtomicBoolean open = new AtomicBoolean(true);
        private final AtomicBoolean clientClosed = new AtomicBoolean();
        private final AtomicBoolean stdoutClosed = new AtomicBoolean();
        /** Set by {@link #ignoreStdinEof()}: a wedged server that only a signal (or the fake's end) stops. */
        private volatile boolean hung;

        RelayLink(Socket socket, DataInputStream in, long pid) throws IOException {
            this.socket = socket;
            this.in = in;
            this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
            this.pid = pid;
        }

        @Override
        public void start(Listener listener) {
            Thread reader = new Thread(() -> readLoop(listener), "codex-fake-relay-reader-" + pid);
            reader.setDaemon(true);
            reader.start();
        }

        private void readLoop(Listener listener) {
            LineSplitter splitter = new LineSplitter(MAX_LINE, listener::onClientLine,
                    length -> LOG.warn("client wrote an oversized line of {} bytes; dropped", length));
            try {
                while (true) {
                    byte type = in.readByte();
                    int length = in.readInt();
                    byte[] payload = new byte[length];
                    in.readFully(payload);
                    if (type == RelayMain.STDIN) {
                        splitter.feed(payload, 0, payload.length);
                    } else if (type == RelayMain.STDIN_EOF) {
                        // Keep reading until the relay exits: closing the socket now would race its own exit.
                        splitter.finish();
                        if (clientClosed.compareAndSet(false, true)) {
                            listener.onClientClosed();
                        }
                        if (!hung) {
                            exit(0);
                        }
                    }
                }
            } catch (EOFException | SocketException e) {
                LOG.debug("relay {} disconnected", pid);
            } catch (IOException e) {
                LOG.debug("relay {} read failed", pid, e);
            }
            splitter.finish();
            if (clientClosed.compareAndSet(false, true)) {
                listener.onClientClosed();
            }
            open.set(false);
            links.remove(this);
            closeSocket();
        }

        private void send(byte type, byte[] payload) {
            if (!open.get()) {
                LOG.debug("relay {} is gone; dropping a frame of {} bytes", pid, payload.length);
                return;
            }
            try {
                RelayMain.writeFrame(out, type, payload);
            } catch (IOException e) {
                LOG.debug("relay {} write failed", pid, e);
                open.set(false);
            }
        }

        @Override
        public void writeLine(byte[] message) {
            byte[] framed = new byte[message.length + 1];
            System.arraycopy(message, 0, framed, 0, message.length);
            framed[message.length] = '\n';
            writeRaw(framed);
        }

        @Override
        public void writeRaw(byte[] bytes) {
            if (stdoutClosed.get()) {
                return;
            }
            // Large writes go in slices so one huge line never needs one huge frame buffer on the relay side.
            int slice = 1 << 20;
            for (int off = 0; off < bytes.length; off += slice) {
                int n = Math.min(slice, bytes.length - off);
                byte[] part = new byte[n];
                System.arraycopy(bytes, off, part, 0, n);
                send(RelayMain.STDOUT, part);
            }
        }

        @Override
        public void writeStderr(byte[] bytes) {
            send(RelayMain.STDERR, bytes);
        }

        @Override
        public void floodStderr(long bytes) {
            send(RelayMain.FLOOD_STDERR, ByteBuffer.allocate(8).putLong(bytes).array());
        }

        @Override
        public void ignoreStdinEof() {
            hung = true;
        }

        @Override
        public void closeStdout() {
            if (stdoutClosed.compareAndSet(false, true)) {
                send(RelayMain.CLOSE_STDOUT, new byte[0]);
            }
        }

        @Override
        public void exit(int code) {
            stdoutClosed.set(true);
            send(RelayMain.EXIT, ByteBuffer.allocate(4).putInt(code).array());
            open.set(false);
            // Half-close only: a full close could reset the connection and destroy the exit frame before the
            // relay reads it. The reader closes the socket when the relay's side ends.
            try {
                socket.shutdownOutput();
            } catch (IOException e) {
                LOG.debug("half-closing relay socket", e);
            }
        }

        private void closeSocket() {
            try {
                socket.close();
            } catch (IOException e) {
                LOG.debug("closing relay socket", e);
            }
        }

        @Override
        public boolean isOpen() {
            return open.get();
        }

        @Override
        public String describe() {
            return "fake codex app-server relay (pid " + pid + ")";
        }
    }
}
