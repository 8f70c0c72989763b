package dev.codexclient.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.protocol.RequestId;
import dev.codexclient.testkit.internal.fake.Json;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plays the server side of a {@link ReplayScript} on one connection. It walks the recording in order: a line the
 * client sent is awaited (requests by method, in order), a line the client received is written, with request ids
 * mapped to the ids the client under test actually uses.
 */
final class ReplayDriver {
    private static final Logger LOG = LoggerFactory.getLogger(ReplayDriver.class);
    private static final Duration STEP_TIMEOUT = Duration.ofSeconds(10);

    private final FakeCodexAppServer server;
    private final FakeCodexAppServer.Session session;
    private final ReplayScript script;
    private final Object lock = new Object();
    private final Map<String, Deque<RecordedRequest>> requestsByMethod = new HashMap<>();
    private final Map<String, Integer> notificationsByMethod = new HashMap<>();
    private final Set<RequestId> answeredServerRequests = new HashSet<>();
    /** Recorded client request id (as JSON text) to the live client's id. */
    private final Map<String, RequestId> clientIds = new HashMap<>();
    /** Recorded server request id (as JSON text) to the id this replay used. */
    private final Map<String, RequestId> serverIds = new HashMap<>();
    private boolean clientClosed;
    private boolean finished;

    ReplayDriver(FakeCodexAppServer server, FakeCodexAppServer.Session session, ReplayScript script) {
        this.server = server;
        this.session = session;
        this.script = script;
    }

    void onClientRequest(RecordedRequest request) {
        boolean late;
        synchronized (lock) {
            late = finished;
            if (!late) {
                requestsByMethod.computeIfAbsent(request.method(), m -> new ArrayDeque<>()).add(request);
                lock.notifyAll();
            }
        }
        if (late) {
            unmatched(request);
        }
    }

    void onClientNotification(RecordedNotification notification) {
        synchronized (lock) {
            notificationsByMethod.merge(notification.method(), 1, Integer::sum);
            lock.notifyAll();
        }
    }

    void onClientResponse(RequestId id) {
        synchronized (lock) {
            answeredServerRequests.add(id);
            lock.notifyAll();
        }
    }

    void onClientClosed() {
        synchronized (lock) {
            clientClosed = true;
            lock.notifyAll();
        }
    }

    void run() {
        try {
            for (ReplayScript.Entry entry : script.entries) {
                if (server.isClosed() || session.closed) {
                    return;
                }
                boolean go = entry.sentByClient() ? awaitClient(entry) : playServer(entry);
                if (!go) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } finally {
            finish();
        }
    }

    private boolean awaitClient(ReplayScript.Entry entry) throws InterruptedException {
        JsonNode msg = entry.message();
        if (msg == null) {
            return true; // the client wrote a non-JSON line in the recording; nothing to wait for
        }
        String method = msg.path("method").asText(null);
        JsonNode id = msg.get("id");
        boolean hasId = id != null && !id.isNull();
        long deadline = System.nanoTime() + STEP_TIMEOUT.toNanos();
        synchronized (lock) {
            while (true) {
                if (method != null && hasId) {
                    Deque<RecordedRequest> queue = requestsByMethod.get(method);
                    if (queue != null && !queue.isEmpty()) {
                        clientIds.put(id.toString(), queue.poll().id());
                        return true;
                    }
                } else if (method != null) {
                    int seen = notificationsByMethod.getOrDefault(method, 0);
                    if (seen > 0) {
                        notificationsByMethod.put(method, seen - 1);
                        return true;
                    }
                } else if (hasId) {
                    RequestId live = serverIds.get(id.toString());
                    if (live == null || answeredServerRequests.remove(live)) {
                        return true;
                    }
                } else {
                    return true;
                }
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0 || clientClosed) {
                    server.recordFailure(new AssertionError("replay of " + script.source + " diverged at line "
                            + entry.lineNumber() + ": the client did not send " + describe(msg)
                            + (clientClosed ? " before disconnecting" : " within " + STEP_TIMEOUT)));
                    // A missing notification or answer does not stop the replay; a missing request does,
                    // since everything after it answered that request.
                    return !(method != null && hasId);
                }
                lock.wait(left);
            }
        }
    }

    private boolean playServer(ReplayScript.Entry entry) {
        if (entry.message() == null) {
            server.writeRaw(session, (entry.raw() + "\n").getBytes(StandardCharsets.UTF_8));
            return true;
        }
        if (!entry.message().isObject()) {
            server.writeRaw(session, (entry.message().toString() + "\n").getBytes(StandardCharsets.UTF_8));
            return true;
        }
        ObjectNode msg = (ObjectNode) entry.message().deepCopy();
        JsonNode id = msg.get("id");
        boolean hasId = id != null && !id.isNull();
        if (hasId && msg.has("method")) {
            // A server request: give it this connection's next id and remember the mapping.
            PendingServerRequest pending = server.sendRequestOn(session, msg.get("method").asText(),
                    msg.has("params") ? msg.get("params") : Json.object());
            synchronized (lock) {
                serverIds.put(id.toString(), pending.id());
            }
            return true;
        }
        if (hasId) {
            RequestId live;
            synchronized (lock) {
                live = clientIds.get(id.toString());
            }
            if (live == null) {
                server.recordFailure(new AssertionError("replay of " + script.source + " line "
                        + entry.lineNumber() + " answers request id " + id + ", which the client never sent"));
            } else {
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
        server.write(session, msg);
        return true;
    }

    private void finish() {
        Deque<RecordedRequest> leftovers = new ArrayDeque<>();
        synchronized (lock) {
            finished = true;
            requestsByMethod.values().forEach(leftovers::addAll);
            requestsByMethod.clear();
        }
        leftovers.forEach(this::unmatched);
        LOG.debug("replay of {} finished", script.source);
    }

    private void unmatched(RecordedRequest request) {
        server.recordFailure(new AssertionError("replay of " + script.source + " has no answer for the client's "
                + request.method() + " request (id " + request.id() + ")"));
        if (!session.closed && !server.isClosed()) {
            ObjectNode msg = Json.object();
            msg.set("id", Json.tree(request.id()));
            msg.putObject("error").put("code", -32603)
                    .put("message", "fake replay: the recording has no answer for " + request.method());
            server.write(session, msg);
        }
    }

    private static String describe(JsonNode msg) {
        if (msg.has("method")) {
            return (msg.has("id") ? "request " : "notification ") + msg.get("method").asText();
        }
        return "a response to server request " + msg.path("id");
    }
}
