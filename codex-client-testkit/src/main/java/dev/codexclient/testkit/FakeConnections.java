package dev.codexclient.testkit;

import dev.codexclient.testkit.internal.fake.Connection;
import dev.codexclient.testkit.internal.fake.InMemoryLink;
import dev.codexclient.testkit.internal.fake.RelayServer;
import dev.codexclient.testkit.internal.fake.WireHandler;
import dev.codexclient.transport.Transport;
import java.time.Duration;
import java.util.List;

/**
 * The server side of one fake: the connections it accepts (in memory, or from a relaying child process over
 * loopback), what each new connection's requests go to (the scripted answers, or the replay of a recording), the
 * newest connection, and the end of all of them. The scripting and verification of the fake do not live here.
 */
final class FakeConnections {
    private final FakeContext fake;
    private final RequestAnswerer answerer;
    private final ReplayScript replayScript;
    private final Duration replayStepTimeout;
    private final WireHandler wire;
    private final Object relayLock = new Object();
    /** Started by the first child's command; guarded by {@link #relayLock}. */
    private RelayServer relay;

    /**
     * @param replayScript the recording to replay to every connection; null to answer as scripted
     */
    FakeConnections(FakeContext fake, RequestAnswerer answerer, ReplayScript replayScript,
                    Duration replayStepTimeout) {
        this.fake = fake;
        this.answerer = answerer;
        this.replayScript = replayScript;
        this.replayStepTimeout = replayStepTimeout;
        Journal journal = fake.journal;
        this.wire = new WireHandler(fake.dispatcher, connection -> journal.inbound(receiver(connection)),
                journal::received, journal::sent, fake::recordFailure);
    }

    /** What the fake does with a new connection's requests: answer them as scripted, or replay a recording. */
    private Journal.Receiver receiver(Connection connection) {
        if (replayScript != null) {
            return new ReplayDriver(fake, connection, replayScript, replayStepTimeout);
        }
        return request -> answerer.answer(connection, request);
    }

    /** A new in-memory connection; the client's end of it. */
    Transport connectInMemory() {
        fake.ensureOpen();
        InMemoryLink link = InMemoryLink.create();
        wire.accept(link);
        return link.takeClientTransport();
    }

    /** The command of a child that relays its stdio to this fake, the relay started with the first one. */
    List<String> childProcessCommand() {
        fake.ensureOpen();
        synchronized (relayLock) {
            if (relay == null) {
                relay = new RelayServer(wire::accept);
            }
            return relay.command();
        }
    }

    void awaitConnections(int count, Duration timeout) {
        wire.awaitConnections(count, timeout);
    }

    int connectionCount() {
        return wire.connectionCount();
    }

    /** The newest connection, where the test's notifications, requests and faults go. */
    Connection newest() {
        fake.ensureOpen();
        return wire.newest();
    }

    /** Ends every connection (children are told to exit with 0) and the relay. */
    void closeAll() {
        wire.closeAll();
        RelayServer r;
        synchronized (relayLock) {
            r = relay;
        }
        if (r != null) {
            r.close();
        }
    }
}
