package dev.codexclient.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.errors.CodexTimeoutException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ReadinessProbeTest {

    @Test
    void probesTheListenersHealthPathsWithoutTheUrisCredentials() {
        ReadinessProbe probe = ReadinessProbe.of(URI.create("ws://user:pw@127.0.0.1:4500/rpc?token=abc"));
        assertThat(probe.readyUri()).isEqualTo(URI.create("http://127.0.0.1:4500/readyz"));
        assertThat(probe.healthUri()).isEqualTo(URI.create("http://127.0.0.1:4500/healthz"));
        assertThat(ReadinessProbe.of(URI.create("wss://codex.example:443")).readyUri())
                .isEqualTo(URI.create("https://codex.example:443/readyz"));
        assertThatThrownBy(() -> ReadinessProbe.of(URI.create("http://127.0.0.1:1")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void answersWhatTheServerSays() throws Exception {
        AtomicInteger readyStatus = new AtomicInteger(503);
        List<String> requests = new CopyOnWriteArrayList<>();
        ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread http = new Thread(() -> {
            while (!server.isClosed()) {
                try (Socket s = server.accept()) {
                    BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(),
                            StandardCharsets.US_ASCII));
                    String requestLine = in.readLine();
                    requests.add(requestLine);
                    for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
                        requests.add(line);
                    }
                    int status = requestLine.startsWith("GET /healthz ") ? 200 : readyStatus.get();
                    s.getOutputStream().write(("HTTP/1.1 " + status + " X\r\ncontent-length: 0\r\n"
                            + "connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                } catch (IOException e) {
                    // closed
                }
            }
        });
        http.setDaemon(true);
        http.start();
        int port = server.getLocalPort();
        try {
            ReadinessProbe probe = ReadinessProbe.of(URI.create("ws://127.0.0.1:" + port));
            assertThat(probe.isHealthy()).isTrue();
            assertThat(probe.isReady()).isFalse();
            readyStatus.set(200);
            assertThat(probe.isReady()).isTrue();
            probe.awaitReady(Duration.ofSeconds(5));
            assertThat(requests).contains("GET /healthz HTTP/1.1", "GET /readyz HTTP/1.1")
                    .noneMatch(line -> line.toLowerCase(java.util.Locale.ROOT).startsWith("authorization"));
        } finally {
            server.close();
        }
        // Nothing listens on a port held by a bound, non-listening socket without SO_REUSEADDR: connecting to it
        // is refused, and no other process can take the port over meanwhile (a closed port could be reused).
        try (Socket reserved = new Socket()) {
            reserved.setReuseAddress(false);
            reserved.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            ReadinessProbe gone = ReadinessProbe.of(URI.create("ws://127.0.0.1:" + reserved.getLocalPort()));
            assertThat(gone.isReady()).isFalse();
        }
    }

    @Test
    void awaitReadyPollsUntilReadyOnAFakeClock() {
        long[] now = {0};
        List<Duration> sleeps = new ArrayList<>();
        AtomicInteger attempts = new AtomicInteger();
        ReadinessProbe probe = new ReadinessProbe(URI.create("ws://127.0.0.1:4500"), Duration.ofMillis(50),
                uri -> attempts.incrementAndGet() < 4 ? new ReadinessProbe.Observation(false, "ConnectException")
                        : new ReadinessProbe.Observation(true, "HTTP 200"),
                () -> now[0], d -> {
                    sleeps.add(d);
                    now[0] += d.toNanos();
                });
        probe.awaitReady(Duration.ofSeconds(1));
        assertThat(attempts).hasValue(4);
        assertThat(sleeps).containsExactly(Duration.ofMillis(50), Duration.ofMillis(50), Duration.ofMillis(50));
    }

    @Test
    void awaitReadyGivesUpAtTheDeadlineSayingWhatItLastSaw() {
        long[] now = {0};
        List<Duration> sleeps = new ArrayList<>();
        ReadinessProbe probe = new ReadinessProbe(URI.create("ws://127.0.0.1:4500"), Duration.ofMillis(400),
                uri -> new ReadinessProbe.Observation(false, "HTTP 503"), () -> now[0], d -> {
                    sleeps.add(d);
                    now[0] += d.toNanos();
                });
        assertThatThrownBy(() -> probe.awaitReady(Duration.ofSeconds(1)))
                .isInstanceOf(CodexTimeoutException.class)
                .hasMessageContaining("readiness of http://127.0.0.1:4500/readyz (last attempt: HTTP 503)")
                .hasMessageContaining("1000 ms");
        // The last wait is cut to the deadline rather than overshooting it.
        assertThat(sleeps).containsExactly(Duration.ofMillis(400), Duration.ofMillis(400), Duration.ofMillis(200));
    }

    @Test
    void anInterruptedWaitStopsAndKeepsTheFlag() {
        ReadinessProbe probe = new ReadinessProbe(URI.create("ws://127.0.0.1:4500"), Duration.ofMillis(50),
                uri -> new ReadinessProbe.Observation(false, "HTTP 503"), System::nanoTime, d -> {
                    throw new InterruptedException();
                });
        try {
            assertThatThrownBy(() -> probe.awaitReady(Duration.ofSeconds(1)))
                    .isInstanceOf(dev.codexclient.errors.CodexTransportException.class)
                    .hasMessageContaining("Interrupted");
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }
}
