package dev.codexclient.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.errors.CodexException;
import dev.codexclient.pool.internal.DnsLookups;
import java.io.ByteArrayOutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.SocketException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The DNS resolvers: A/AAAA through the JVM's lookup, SRV through the JDK's JNDI DNS provider against a name server
 * on loopback that answers what the test sets (as a headless Service's SRV records look).
 */
@Timeout(30)
class PoolDnsTest {
    /** An SRV record: priority, weight, port, target. */
    private record Srv(int priority, int weight, int port, String target) {
    }

    private final Map<String, List<Srv>> zone = new ConcurrentHashMap<>();
    private DatagramSocket socket;
    private Thread server;

    @BeforeEach
    void startNameServer() throws Exception {
        socket = new DatagramSocket(0, InetAddress.getLoopbackAddress());
        server = new Thread(this::serve, "test-dns");
        server.setDaemon(true);
        server.start();
    }

    @AfterEach
    void stop() throws Exception {
        socket.close();
        server.join(5000);
    }

    private String nameServer() {
        return "dns://127.0.0.1:" + socket.getLocalPort();
    }

    @Test
    void srvRecordsBecomeEndpointsNamedByTheirStableHostNamesInPriorityThenWeightOrder() {
        String name = "_ws._tcp.codex.default.svc.cluster.local";
        zone.put(name, List.of(
                new Srv(10, 10, 8080, "codex-2.codex.default.svc.cluster.local."),
                new Srv(0, 10, 8080, "codex-0.codex.default.svc.cluster.local."),
                new Srv(0, 50, 8081, "codex-1.codex.default.svc.cluster.local.")));
        List<PoolEndpoint> endpoints = DnsLookups.srv("ws", name, nameServer());
        assertThat(endpoints).extracting(PoolEndpoint::name).containsExactly(
                "codex-1.codex.default.svc.cluster.local:8081",
                "codex-0.codex.default.svc.cluster.local:8080",
                "codex-2.codex.default.svc.cluster.local:8080");
        assertThat(endpoints.get(0).uri()).isEqualTo(URI.create("ws://codex-1.codex.default.svc.cluster.local:8081"));

        // The answer changes: a pod more, one less.
        zone.put(name, List.of(new Srv(0, 10, 8080, "codex-0.codex.default.svc.cluster.local."),
                new Srv(0, 10, 8080, "codex-3.codex.default.svc.cluster.local.")));
        assertThat(DnsLookups.srv("wss", name, nameServer())).extracting(PoolEndpoint::uri).containsExactlyInAnyOrder(
                URI.create("wss://codex-0.codex.default.svc.cluster.local:8080"),
                URI.create("wss://codex-3.codex.default.svc.cluster.local:8080"));
    }

    @Test
    void aNameThatDoesNotExistIsAFailedAnswerNotAnEmptyOne() {
        assertThatThrownBy(() -> DnsLookups.srv("ws", "_ws._tcp.nobody.default.svc.cluster.local", nameServer()))
                .isInstanceOf(CodexException.class).hasMessageContaining("the SRV lookup of "
                        + "_ws._tcp.nobody.default.svc.cluster.local failed");
    }

    @Test
    void addressRecordsBecomeEndpointsNamedByAddress() {
        List<PoolEndpoint> local = MemberResolver.dns("ws", "localhost", 4500).resolve();
        assertThat(local).isNotEmpty().allSatisfy(e -> {
            assertThat(e.uri().getPort()).isEqualTo(4500);
            assertThat(e.uri().getScheme()).isEqualTo("ws");
            assertThat(InetAddress.getByName(e.uri().getHost().replace("[", "").replace("]", ""))
                    .isLoopbackAddress()).isTrue();
        });
        assertThat(local).extracting(PoolEndpoint::name).contains("127.0.0.1:4500");
        assertThatThrownBy(() -> MemberResolver.dns("ws", "no-such-host.invalid", 4500).resolve())
                .isInstanceOf(CodexException.class).hasMessageContaining("no-such-host.invalid did not resolve");
        assertThatThrownBy(() -> MemberResolver.dns("http", "localhost", 4500))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private void serve() {
        byte[] buf = new byte[512];
        while (!socket.isClosed()) {
            DatagramPacket query = new DatagramPacket(buf, buf.length);
            try {
                socket.receive(query);
                byte[] answer = answer(ByteBuffer.wrap(query.getData(), 0, query.getLength()));
                socket.send(new DatagramPacket(answer, answer.length, query.getSocketAddress()));
            } catch (SocketException closed) {
                return;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** A response to one SRV question: the records of the name, or NXDOMAIN. */
    private byte[] answer(ByteBuffer q) {
        short id = q.getShort();
        q.position(12);
        StringBuilder name = new StringBuilder();
        for (int len = q.get() & 0xff; len != 0; len = q.get() & 0xff) {
            byte[] label = new byte[len];
            q.get(label);
            name.append(name.length() == 0 ? "" : ".").append(new String(label, StandardCharsets.US_ASCII));
        }
        int questionEnd = q.position() + 4;
        List<Srv> records = zone.get(name.toString());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer header = ByteBuffer.allocate(12);
        header.putShort(id).putShort((short) (records == null ? 0x8183 : 0x8180)).putShort((short) 1)
                .putShort((short) (records == null ? 0 : records.size())).putShort((short) 0).putShort((short) 0);
        out.writeBytes(header.array());
        out.write(q.array(), 12, questionEnd - 12);
        for (Srv r : records == null ? List.<Srv>of() : records) {
            ByteArrayOutputStream rdata = new ByteArrayOutputStream();
            rdata.writeBytes(ByteBuffer.allocate(6).putShort((short) r.priority()).putShort((short) r.weight())
                    .putShort((short) r.port()).array());
            for (String label : r.target().split("\\.")) {
                rdata.write(label.length());
                rdata.writeBytes(label.getBytes(StandardCharsets.US_ASCII));
            }
            rdata.write(0);
            // The name as a pointer to the question's; type SRV, class IN, TTL 5 s.
            out.writeBytes(ByteBuffer.allocate(12).putShort((short) 0xC00C).putShort((short) 33).putShort((short) 1)
                    .putInt(5).putShort((short) rdata.size()).array());
            out.writeBytes(rdata.toByteArray());
        }
        return out.toByteArray();
    }
}
