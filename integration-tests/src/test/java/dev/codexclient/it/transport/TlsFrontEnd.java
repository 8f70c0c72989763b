package dev.codexclient.it.transport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * Terminates TLS on a loopback port and relays the bytes to a plain TCP port (codex's WebSocket listener), the way
 * a reverse proxy puts {@code wss://} in front of it. Its certificate is made for the test with {@code keytool}, for
 * {@code localhost} and {@code 127.0.0.1}, and trusted only through {@link #clientContext()}.
 */
final class TlsFrontEnd implements AutoCloseable {

    private static final char[] PASSWORD = "front-end-test".toCharArray();

    private final KeyStore keyStore;
    private final SSLServerSocket server;
    private final int targetPort;
    private final AtomicInteger connections = new AtomicInteger();
    private final Thread acceptor;

    TlsFrontEnd(Path dir, int targetPort) throws Exception {
        this.targetPort = targetPort;
        Path store = dir.resolve("front-end.p12");
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process gen = new ProcessBuilder(keytool.toString(), "-genkeypair", "-alias", "front-end", "-keyalg", "EC",
                "-groupname", "secp256r1", "-dname", "CN=localhost", "-ext", "SAN=dns:localhost,ip:127.0.0.1",
                "-validity", "2", "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass",
                new String(PASSWORD), "-keypass", new String(PASSWORD)).redirectErrorStream(true).start();
        String out = new String(gen.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!gen.waitFor(60, TimeUnit.SECONDS) || gen.exitValue() != 0) {
            throw new IllegalStateException("keytool failed: " + out);
        }
        keyStore = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            keyStore.load(in, PASSWORD);
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keyStore, PASSWORD);
        SSLContext serverContext = SSLContext.getInstance("TLS");
        serverContext.init(kmf.getKeyManagers(), null, null);
        server = (SSLServerSocket) serverContext.getServerSocketFactory().createServerSocket(0, 50,
                InetAddress.getLoopbackAddress());
        acceptor = new Thread(this::acceptLoop, "tls-front-end");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** How many TLS connections were relayed. */
    int connections() {
        return connections.get();
    }

    /** A client context that trusts the front end's certificate (and nothing else). */
    SSLContext clientContext() throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("front-end", keyStore.getCertificate("front-end"));
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        return context;
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket target = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                connections.incrementAndGet();
                for (List<Socket> pair : List.of(List.of(client, target), List.of(target, client))) {
                    Thread relay = new Thread(() -> relay(pair.get(0), pair.get(1)), "tls-front-end-relay");
                    relay.setDaemon(true);
                    relay.start();
                }
            } catch (IOException e) {
                // closed, or a client that gave up during the TLS handshake
            }
        }
    }

    private static void relay(Socket from, Socket to) {
        byte[] buffer = new byte[64 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // one side went away (a failed TLS handshake included): end the other
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // best effort
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
