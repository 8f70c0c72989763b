package dev.codexclient.testkit.internal.fake;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * The child process a client spawns in child-process mode. It connects back to the fake in the test JVM over
 * loopback TCP and relays its stdin to the fake and the fake's frames to its stdout/stderr, so the fake's logic
 * stays in the test JVM while the client drives a real process with real pipes.
 *
 * <p>Control protocol, both directions: frames of {@code type (1 byte) | length (int32 big-endian) | payload}.
 * Relay to fake: {@code H} hello (payload: UTF-8 {@code "<token> <pid>"}), {@code I} bytes read from stdin,
 * {@code Z} stdin reached EOF. Fake to relay: {@code O} bytes for stdout, {@code E} bytes for stderr, {@code C}
 * close stdout, {@code X} exit (payload: int32 exit code), {@code F} flood stderr (payload: int64 byte count).
 *
 * <p>The relay never outlives its purpose: it exits when stdin closes (like codex does) and when the socket drops.
 * The first is the fake's decision: the relay reports {@code Z} and the fake answers with {@code X}, unless it plays
 * a hung server. Deciding on the fake's side keeps the order deterministic; a flag sent to the relay would race the
 * relay's own stdin thread.
 * It depends on the JDK only, so its class path is just this class's code source.
 */
public final class RelayMain {
    static final byte HELLO = 'H';
    static final byte STDIN = 'I';
    static final byte STDIN_EOF = 'Z';
    static final byte STDOUT = 'O';
    static final byte STDERR = 'E';
    static final byte CLOSE_STDOUT = 'C';
    static final byte EXIT = 'X';
    static final byte FLOOD_STDERR = 'F';

    /** Exit code when the connection to the fake is lost without an exit instruction. */
    static final int EXIT_CONNECTION_LOST = 70;

    /** Set once stdin hit EOF: losing the socket after that is the normal end, not a failure. */
    private static volatile boolean stdinClosed;

    private RelayMain() {
    }

    public static void main(String[] args) {
        if (args.length != 2) {
            System.err.println("usage: RelayMain <port> <token>");
            Runtime.getRuntime().halt(64);
        }
        int port = Integer.parseInt(args[0]);
        String token = args[1];
        OutputStream stdout = new FileOutputStream(FileDescriptor.out);
        OutputStream stderr = new FileOutputStream(FileDescriptor.err);
        try {
            Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
            socket.setTcpNoDelay(true);
            DataOutputStream toFake = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
            DataInputStream fromFake = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            writeFrame(toFake, HELLO, (token + " " + ProcessHandle.current().pid()).getBytes(StandardCharsets.UTF_8));
            Thread pump = new Thread(() -> pumpStdin(toFake), "relay-stdin");
            pump.setDaemon(true);
            pump.start();
            relayFrames(fromFake, stdout, stderr);
        } catch (IOException e) {
            // The fake went away (test finished or crashed): a relay must never be left running.
        }
        Runtime.getRuntime().halt(stdinClosed ? 0 : EXIT_CONNECTION_LOST);
    }

    private static void pumpStdin(DataOutputStream toFake) {
        InputStream in = new FileInputStreamHolder().stdin;
        byte[] buffer = new byte[64 * 1024];
        try {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                if (n > 0) {
                    byte[] chunk = new byte[n];
                    System.arraycopy(buffer, 0, chunk, 0, n);
                    writeFrame(toFake, STDIN, chunk);
                }
            }
        } catch (IOException e) {
            // A failed socket also ends the frame loop; a failed stdin is reported like its end.
        }
        stdinClosed = true;
        try {
            // Like codex, the relay is done now: the fake answers with an exit (or, playing a hung server, not).
            writeFrame(toFake, STDIN_EOF, new byte[0]);
        } catch (IOException e) {
            // The socket is gone; the frame loop sees that and exits.
        }
    }

    /**
     * Reads control frames and hands output to writer threads, so a client that stops reading our stdout (or
     * stderr) can never keep this loop from seeing an exit instruction or the loss of the fake.
     */
    private static void relayFrames(DataInputStream fromFake, OutputStream stdout, OutputStream stderr)
            throws IOException {
        Pipe out = new Pipe(stdout, "relay-stdout");
        Pipe err = new Pipe(stderr, "relay-stderr");
        try {
            while (true) {
                byte type;
                try {
                    type = fromFake.readByte();
                } catch (EOFException e) {
                    return;
                }
                int length = fromFake.readInt();
                byte[] payload = new byte[length];
                fromFake.readFully(payload);
                switch (type) {
                    case STDOUT -> out.write(payload);
                    case STDERR -> err.write(payload);
                    case CLOSE_STDOUT -> out.close();
                    case EXIT -> {
                        out.drain();
                        err.drain();
                        Runtime.getRuntime().halt(java.nio.ByteBuffer.wrap(payload).getInt());
                    }
                    case FLOOD_STDERR -> err.flood(java.nio.ByteBuffer.wrap(payload).getLong());
                    default -> err.write(("relay: unknown frame type " + type + "\n")
                            .getBytes(StandardCharsets.UTF_8));
                }
            }
        } finally {
            out.drain();
            err.drain();
        }
    }

    /** One output stream written by its own thread from a queue. */
    private static final class Pipe {
        private static final byte[] CLOSE = new byte[0];
        private static final long DRAIN_MS = 2_000;
        private final java.util.concurrent.LinkedBlockingQueue<byte[]> queue =
                new java.util.concurrent.LinkedBlockingQueue<>();
        private final java.util.concurrent.atomic.AtomicLong pending = new java.util.concurrent.atomic.AtomicLong();

        Pipe(OutputStream target, String name) {
            Thread t = new Thread(() -> {
                boolean open = true;
                try {
                    while (true) {
                        byte[] chunk = queue.take();
                        if (chunk == CLOSE) {
                            if (open) {
                                open = false;
                                try {
                                    target.close();
                                } catch (IOException ignored) {
                                    // already closed by the reader
                                }
                            }
                        } else if (open) {
                            try {
                                target.write(chunk);
                                target.flush();
                            } catch (IOException e) {
                                open = false; // the client closed its end; keep draining the queue
                            }
                        }
                        pending.decrementAndGet();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, name);
            t.setDaemon(true);
            t.start();
        }

        void write(byte[] bytes) {
            pending.incrementAndGet();
            queue.add(bytes);
        }

        void close() {
            pending.incrementAndGet();
            queue.add(CLOSE);
        }

        void flood(long bytes) {
            byte[] line = "WARN codex_core::fake: stderr flood line 0123456789abcdefghijklmnopqrstuvwxyz\n"
                    .getBytes(StandardCharsets.US_ASCII);
            byte[] block = new byte[line.length * 512];
            for (int i = 0; i < 512; i++) {
                System.arraycopy(line, 0, block, i * line.length, line.length);
            }
            long remaining = bytes;
            while (remaining > 0) {
                int n = (int) Math.min(block.length, remaining);
                write(n == block.length ? block : java.util.Arrays.copyOf(block, n));
                remaining -= n;
            }
        }

        /** Waits (bounded) until everything queued was written, so an exit does not cut output short. */
        void drain() {
            long deadline = System.currentTimeMillis() + DRAIN_MS;
            while (pending.get() > 0 && System.currentTimeMillis() < deadline) {
                try {
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    static void writeFrame(DataOutputStream out, byte type, byte[] payload) throws IOException {
        synchronized (out) {
            out.writeByte(type);
            out.writeInt(payload.length);
            out.write(payload);
            out.flush();
        }
    }

    /** Raw stdin, unbuffered, so bytes are relayed as soon as the client writes them. */
    private static final class FileInputStreamHolder {
        final InputStream stdin = new java.io.FileInputStream(FileDescriptor.in);
    }
}
