package dev.codexclient.testkit;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.testkit.internal.fake.Connection;
import dev.codexclient.testkit.internal.fake.Json;
import dev.codexclient.testkit.internal.fake.ServerLink;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/** Applies a {@link Fault}: to a connection's wire or "process", to the fake's rules, or to its next turn. */
final class FaultInjector {
    static final int OVERLOADED = -32001;
    static final String OVERLOADED_MESSAGE = "Server overloaded; retry later.";

    private final FakeContext fake;
    private final TurnPlayer turns;
    private FakeCodexAppServer owner;
    private RequestAnswerer answerer;

    FaultInjector(FakeContext fake, TurnPlayer turns) {
        this.fake = fake;
        this.turns = turns;
    }

    /**
     * Set once, right after construction: an overloaded fault becomes a rule of the answerer, and the answerer
     * applies faults that rules answer with.
     */
    void bind(FakeCodexAppServer owner, RequestAnswerer answerer) {
        this.owner = owner;
        this.answerer = answerer;
    }

    /** Applies a fault that needs no connection; false when {@code fault} acts on one. */
    boolean applyToFake(Fault fault) {
        if (fault instanceof Fault.Overloaded o) {
            Stubbing rule = new Stubbing(owner, req -> req.method().equals(o.method()), "overloaded " + o.method());
            rule.times(o.times());
            Reply reply = Reply.error(OVERLOADED, OVERLOADED_MESSAGE);
            rule.action = req -> reply;
            answerer.addFirst(rule);
        } else if (fault instanceof Fault.Stall) {
            fake.stall();
        } else if (fault instanceof Fault.NeverCompleteTurn) {
            turns.neverCompleteNext();
        } else {
            return false;
        }
        return true;
    }

    /** Applies {@code fault} on {@code connection}, or to the fake when it needs no connection. */
    void applyOn(Connection connection, Fault fault) {
        ServerLink link = connection.link();
        if (fault instanceof Fault.CloseStdout) {
            link.closeStdout();
        } else if (fault instanceof Fault.Exit e) {
            connection.markClosed();
            link.exit(e.code());
        } else if (fault instanceof Fault.GarbageLine g) {
            connection.writeRaw((g.text() + "\n").getBytes(StandardCharsets.UTF_8));
        } else if (fault instanceof Fault.SlowFragments f) {
            slowFragments(connection, f);
        } else if (fault instanceof Fault.HugeLine h) {
            String filler = "x".repeat(Math.max(1, h.bytes() - 100));
            connection.notify("warning", Json.object().putNull("threadId").put("message", filler));
        } else if (fault instanceof Fault.FloodStderr f) {
            link.floodStderr(f.bytes());
        } else if (fault instanceof Fault.Hang) {
            link.ignoreStdinEof();
            fake.stall();
        } else if (fault instanceof Fault.Stderr e) {
            link.writeStderr(e.text().getBytes(StandardCharsets.UTF_8));
        } else if (fault instanceof Fault.UnknownNotification u) {
            connection.notify(u.method(), Json.object().put("note", "not part of the protocol"));
        } else if (fault instanceof Fault.UnknownServerRequest u) {
            fake.sendRequest(connection, u.method(), Json.object().put("note", "not part of the protocol"));
        } else if (fault instanceof Fault.ResponseWithUnknownId r) {
            ObjectNode msg = Json.object().put("id", r.id());
            msg.putObject("result");
            connection.write(msg);
        } else {
            applyToFake(fault);
        }
    }

    /** A warning notification cut into fragments, one of them inside a multi-byte character, with pauses. */
    private static void slowFragments(Connection connection, Fault.SlowFragments f) {
        ObjectNode msg = Connection.notification("warning",
                Json.object().putNull("threadId").put("message", f.message()));
        byte[] line = (msg.toString() + "\n").getBytes(StandardCharsets.UTF_8);
        TreeSet<Integer> cuts = new TreeSet<>();
        for (int i = f.fragmentBytes(); i < line.length; i += f.fragmentBytes()) {
            cuts.add(i);
        }
        for (int i = 0; i < line.length; i++) {
            if ((line[i] & 0xC0) == 0x80) {
                cuts.add(i); // inside a multi-byte character, whatever the fragment size
                break;
            }
        }
        cuts.add(line.length);
        List<byte[]> parts = new ArrayList<>();
        int start = 0;
        for (int cut : cuts) {
            byte[] part = new byte[cut - start];
            System.arraycopy(line, start, part, 0, part.length);
            parts.add(part);
            start = cut;
        }
        connection.writeFragments(msg, parts, () -> pause(f));
    }

    private static void pause(Fault.SlowFragments f) {
        try {
            Thread.sleep(f.pause().toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
