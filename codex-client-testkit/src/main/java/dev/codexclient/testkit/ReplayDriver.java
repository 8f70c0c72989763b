package dev.codexclient.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.protocol.RequestId;
import dev.codexclient.testkit.internal.fake.Connection;
import dev.codexclient.testkit.internal.fake.Json;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plays the server side of a {@link ReplayScript} on one connection, in recorded order. It does not wait for
 * every recorded client line (a client that waits for a response before sending its next request would deadlock
 * a strict lock-step replay); it waits only where the recording shows a dependency:
 * <ul>
 *   <li>a recorded response is sent once the live client has sent the matching request: the k-th live request of
 *       a method answers to the k-th recorded request of that method, and the live id replaces the recorded one;</li>
 *   <li>after a recorded client reply to a server request, nothing more is sent until the live client has replied
 *       to the replayed request (the server's behaviour after an approval depends on it).</li>
 * </ul>
 * Server requests get this connection's ids; {@code serverRequest/resolved} is rewritten to match.
 */
final class ReplayDriver implements Journal.Receiver {
    private static final Logger LOG = LoggerFactory.getLogger(ReplayDriver.class);

    /** Where a recorded client request sits: the n-th request of its method. */
    private record Slot(String method, int ordinal) {
    }

    private final FakeContext fake;
    private final Connection connection;
    private final ReplayScript script;
    private final Duration stepTimeout;
    private final Object lock = new Object();
    private final Map<String, List<RecordedRequest>> liveByMethod = new HashMap<>();
    private final Map<String, Integer> recordedCountByMethod = new HashMap<>();
    private final Set<RequestId> answeredServerRequests = new HashSet<>();
    /** Recorded client request id (as JSON text) to its slot. */
    private final Map<String, Slot> recordedRequests = new HashMap<>();
    /** Recorded server request id (as JSON text) to the id this replay used. */
    private final Map<String, RequestId> serverIds = new HashMap<>();
    private final List<ReplayScript.Entry> awaitedReplies = new ArrayList<>();
    private boolean clientClosed;
    private boolean finished;

    ReplayDriver(FakeContext fake, Connection connection, ReplayScript script, Duration stepTimeout) {
        this.fake = fake;
        this.connection = connection;
        this.script = script;
        this.stepTimeout = stepTimeout;
        // Slots are assigned from the whole file up front, so a response that was recorded before its request
        // (the two race in a recorder) still finds it.
        for (ReplayScript.Entry entry : script.entries) {
            JsonNode msg = entry.message();
            if (entry.sentByClient() && msg != null && msg.isObject() && msg.hasNonNull("id")
                    && msg.path("method").isTextual()) {
                String method = msg.get("method").asText();
                int ordinal = recordedCountByMethod.merge(method, 1, Integer::sum) - 1;
                recordedRequests.putIfAbsent(msg.get("id").toString(), new Slot(method, ordinal));
            }
        }
    }

    @Override
    public void onStarted() {
        try {
            fake.workers.execute(this::run);
        } catch (RejectedExecutionException e) {
            LOG.debug("fake closed before the replay started");
        }
    }

    @Override
    public void onRequest(RecordedRequest request) {
        boolean late;
        synchronized (lock) {
            late = finished;
            if (!late) {
                liveByMethod.computeIfAbsent(request.method(), m -> new ArrayList<>()).add(request);
                lock.notifyAll();
            }
        }
        if (late) {
            unmatched(request);
        }
    }

    @Override
    public void onReply(RequestId id) {
        synchronized (lock) {
            answeredServerRequests.add(id);
            lock.notifyAll();
        }
    }

    @Override
    public void onClosed() {
        synchronized (lock) {
            clientClosed = true;
            lock.notifyAll();
        }
    }

    void run() {
        try {
            for (ReplayScript.Entry entry : script.entries) {
                if (fake.isClosed() || connection.isClosed()) {
                    return;
                }
                if (entry.sentByClient()) {
                    noteClientEntry(entry);
                } else if (!playServer(entry)) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            finish();
        }
    }

    private void noteClientEntry(ReplayScript.Entry entry) {
        JsonNode msg = entry.message();
        if (msg == null || !msg.isObject()) {
            return;
        }
        if (msg.hasNonNull("id") && !msg.has("method")) {
            awaitedReplies.add(entry);
        }
    }

    private boolean playServer(ReplayScript.Entry entry) throws InterruptedException {
        awaitReplies();
        if (entry.message() == null) {
            connection.writeRaw((entry.raw() + "\n").getBytes(StandardCharsets.UTF_8));
            return true;
        }
        if (!entry.message().isObject()) {
            connection.writeRaw((entry.message().toString() + "\n").getBytes(StandardCharsets.UTF_8));
            return true;
        }
        ObjectNode msg = (ObjectNode) entry.message().deepCopy();
        JsonNode id = msg.get("id");
        boolean hasId = id != null && !id.isNull();
        if (hasId && msg.has("method")) {
            // A server request: give it this connection's next id and remember the mapping.
            PendingServerRequest pending = fake.sendRequest(connection, msg.get("method").asText(),
                    msg.has("params") ? msg.get("params") : Json.object());
            synchronized (lock) {
                serverIds.put(id.toString(), pending.id());
            }
            return true;
        }
        if (hasId) {
            Slot slot = recordedRequests.get(id.toString());
            if (slot == null) {
                fake.recordFailure(new AssertionError("replay of " + script.source + " line "
                        + entry.lineNumber() + " answers request id " + id + ", which the recording never sent"));
            } else {
                RequestId live = awaitLiveRequest(slot, entry);
                if (live == null) {
                    return false; // everything after this answered a request the client never made
                }
                msg.set("id", Json.tree(live));
            }
        } else if (msg.path("method").asText("").equals("serverRequest/resolved")
                && msg.path("params").isObject()) {
            JsonNode recorded = msg.path("params").get("requestId");
            RequestId live;
            synchronized (lock) {
                live = recorded == null ? null : serverIds.get(recorded.toString());
            }
            if (live != null) {
                ((ObjectNode) msg.get("params")).set("requestId", Json.tree(live));
            }
        }
        connection.write(msg);
        return true;
    }

    private RequestId awaitLiveRequest(Slot slot, ReplayScript.Entry entry) throws InterruptedException {
        long deadline = System.nanoTime() + stepTimeout.toNanos();
        synchronized (lock) {
            while (true) {
                List<RecordedRequest> live = liveByMethod.getOrDefault(slot.method(), List.of());
                if (live.size() > slot.ordinal()) {
                    return live.get(slot.ordinal()).id();
                }
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0 || clientClosed) {
                    fake.recordFailure(new AssertionError("replay of " + script.source + " diverged at line "
                            + entry.lineNumber() + ": the client did not send request " + slot.method() + " #"
                            + (slot.ordinal() + 1) + (clientClosed ? " before disconnecting" : " within "
                            + stepTimeout) + "; it sent " + liveByMethod.keySet()));
                    return null;
                }
                lock.wait(left);
            }
        }
    }

    private void awaitReplies() throws InterruptedException {
        for (ReplayScript.Entry reply : awaitedReplies) {
            long deadline = System.nanoTime() + stepTimeout.toNanos();
            synchronized (lock) {
                RequestId live = serverIds.get(reply.message().get("id").toString());
                while (live != null && !answeredServerRequests.contains(live)) {
                    long left = (deadline - System.nanoTime()) / 1_000_000;
                    if (left <= 0 || clientClosed) {
                        fake.recordFailure(new AssertionError("replay of " + script.source + " diverged at line "
                                + reply.lineNumber() + ": the client did not answer server request " + live));
                        break;
                    }
                    lock.wait(left);
                }
            }
        }
        awaitedReplies.clear();
    }

    private void finish() {
        List<RecordedRequest> leftovers = new ArrayList<>();
        synchronized (lock) {
            finished = true;
            liveByMethod.forEach((method, live) -> {
                int recorded = recordedCountByMethod.getOrDefault(method, 0);
                if (live.size() > recorded) {
                    leftovers.addAll(live.subList(recorded, live.size()));
                }
            });
        }
        leftovers.forEach(this::unmatched);
        LOG.debug("replay of {} finished", script.source);
    }

    private void unmatched(RecordedRequest request) {
        fake.recordFailure(new AssertionError("replay of " + script.source + " has no answer for the client's "
                + request.method() + " request (id " + request.id() + ")"));
        if (!connection.isClosed() && !fake.isClosed()) {
            ObjectNode msg = Json.object();
            msg.set("id", Json.tree(request.id()));
            msg.putObject("error").put("code", -32603)
                    .put("message", "fake replay: the recording has no answer for " + request.method());
            connection.write(msg);
        }
    }
}
