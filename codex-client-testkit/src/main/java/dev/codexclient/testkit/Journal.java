package dev.codexclient.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.protocol.RequestId;
import dev.codexclient.testkit.internal.fake.WireHandler;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * The fake's recording of the traffic, kept as its {@link Recording} says, and the waits of the verification API
 * on it. Requests are taken by sequence number, not removed: the arrival-order cursor of
 * {@link #pollRequest(Duration)} and the per-method cursors of {@link #takeRequest(String, Duration)} are
 * independent, as they always were, and a bounded recording can drop the oldest entries without breaking either.
 */
final class Journal {

    /** What the fake does with one connection's client messages once they are recorded. */
    interface Receiver {
        /** The connection started; a replay starts playing. */
        default void onStarted() {
        }

        /** A client request, recorded already. */
        void onRequest(RecordedRequest request);

        /** A client notification, recorded already. */
        default void onNotification(RecordedNotification notification) {
        }

        /** The client replied to one of the fake's requests. */
        default void onReply(RequestId id) {
        }

        /** The client went. */
        default void onClosed() {
        }
    }

    private final Recording recording;
    private final Object lock = new Object();
    // All guarded by lock.
    private final ArrayDeque<RecordedRequest> requests = new ArrayDeque<>();
    private final ArrayDeque<RecordedNotification> notifications = new ArrayDeque<>();
    private final ArrayDeque<JsonNode> received = new ArrayDeque<>();
    private final ArrayDeque<JsonNode> sent = new ArrayDeque<>();
    private final Map<String, Long> methodCursors = new HashMap<>();
    private long requestCount;
    private long requestCursor;
    private long notificationCursor;
    private volatile JsonNode clientInfo;
    private volatile JsonNode clientCapabilities;

    Journal(Recording recording) {
        this.recording = recording;
    }

    Recording recording() {
        return recording;
    }

    /** Records the messages of one connection before {@code receiver} sees them. */
    WireHandler.Inbound inbound(Receiver receiver) {
        return new WireHandler.Inbound() {
            @Override
            public void onStarted() {
                receiver.onStarted();
            }

            @Override
            public void onRequest(RequestId id, String method, JsonNode params, JsonNode message, long sequence) {
                RecordedRequest request = new RecordedRequest(id, method, params, message, sequence);
                if (method.equals("initialize")) {
                    clientInfo = request.params().get("clientInfo");
                    clientCapabilities = request.params().get("capabilities");
                }
                synchronized (lock) {
                    requestCount++;
                    keep(requests, request);
                    lock.notifyAll();
                }
                receiver.onRequest(request);
            }

            @Override
            public void onNotification(String method, JsonNode params, JsonNode message, long sequence) {
                RecordedNotification notification = new RecordedNotification(method, params, message, sequence);
                synchronized (lock) {
                    keep(notifications, notification);
                    lock.notifyAll();
                }
                receiver.onNotification(notification);
            }

            @Override
            public void onReply(RequestId id) {
                receiver.onReply(id);
            }

            @Override
            public void onClosed() {
                receiver.onClosed();
            }
        };
    }

    void received(JsonNode message) {
        synchronized (lock) {
            keep(received, message);
        }
    }

    void sent(JsonNode message) {
        synchronized (lock) {
            keep(sent, message);
        }
    }

    /** Adds {@code entry}, dropping the oldest beyond the recording's limit; guarded by {@link #lock}. */
    private <T> void keep(ArrayDeque<T> entries, T entry) {
        if (recording.isOff()) {
            return;
        }
        if (entries.size() == recording.limit()) {
            entries.removeFirst();
        }
        entries.addLast(entry);
    }

    Optional<JsonNode> clientInfo() {
        return Optional.ofNullable(clientInfo).map(JsonNode::deepCopy);
    }

    Optional<JsonNode> clientCapabilities() {
        return Optional.ofNullable(clientCapabilities).map(JsonNode::deepCopy);
    }

    // ---------------------------------------------------------------- verification

    Optional<RecordedRequest> pollRequest(Duration timeout) {
        requireRecording("pollRequest/takeRequest");
        synchronized (lock) {
            RecordedRequest r = await(requests, RecordedRequest::sequence, requestCursor, x -> true, timeout,
                    "a client request");
            if (r != null) {
                requestCursor = r.sequence() + 1;
            }
            return Optional.ofNullable(r);
        }
    }

    RecordedRequest takeRequest(Duration timeout) {
        return pollRequest(timeout).orElseThrow(() -> {
            synchronized (lock) {
                return new AssertionError("no client request within " + timeout + "; received so far: "
                        + methodsReceived());
            }
        });
    }

    RecordedRequest takeRequest(String method, Duration timeout) {
        requireRecording("takeRequest(\"" + method + "\", …)");
        synchronized (lock) {
            long from = methodCursors.getOrDefault(method, 0L);
            RecordedRequest r = await(requests, RecordedRequest::sequence, from, x -> x.method().equals(method),
                    timeout, "a " + method + " request");
            if (r == null) {
                throw new AssertionError("no " + method + " request within " + timeout + "; received so far: "
                        + methodsReceived());
            }
            methodCursors.put(method, r.sequence() + 1);
            return r;
        }
    }

    RecordedNotification takeNotification(Duration timeout) {
        requireRecording("takeNotification");
        synchronized (lock) {
            RecordedNotification n = await(notifications, RecordedNotification::sequence, notificationCursor,
                    x -> true, timeout, "a client notification");
            if (n == null) {
                throw new AssertionError("no client notification within " + timeout);
            }
            notificationCursor = n.sequence() + 1;
            return n;
        }
    }

    /**
     * The oldest kept entry from sequence {@code from} on that {@code wanted} accepts, waiting up to
     * {@code timeout}; null when none came. Scans from the newest entry back to {@code from} only, so taking
     * requests one by one from a long recording stays linear. Guarded by {@link #lock}.
     */
    private <T> T await(ArrayDeque<T> entries, ToLongFunction<T> sequence, long from, Predicate<T> wanted,
                        Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            T found = null;
            for (Iterator<T> it = entries.descendingIterator(); it.hasNext(); ) {
                T entry = it.next();
                if (sequence.applyAsLong(entry) < from) {
                    break;
                }
                if (wanted.test(entry)) {
                    found = entry;
                }
            }
            if (found != null) {
                return found;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            try {
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + what, e);
            }
        }
    }

    int requestCount() {
        synchronized (lock) {
            return (int) Math.min(Integer.MAX_VALUE, requestCount);
        }
    }

    List<RecordedRequest> requests() {
        requireRecording("requests()");
        synchronized (lock) {
            return List.copyOf(requests);
        }
    }

    List<JsonNode> receivedMessages() {
        requireRecording("receivedMessages()");
        return copies(received);
    }

    List<JsonNode> sentMessages() {
        requireRecording("sentMessages()");
        return copies(sent);
    }

    private List<JsonNode> copies(ArrayDeque<JsonNode> messages) {
        List<JsonNode> kept;
        synchronized (lock) {
            kept = new ArrayList<>(messages);
        }
        // Copies outside the lock: the wire records under it. A message is not changed once written or read.
        return kept.stream().<JsonNode>map(JsonNode::deepCopy).toList();
    }

    /** Guarded by {@link #lock}. */
    private String methodsReceived() {
        String kept = requests.stream().map(RecordedRequest::method).toList().toString();
        return requests.size() == requestCount ? kept : kept + " (the newest " + requests.size() + " of "
                + requestCount + ", as " + recording + " keeps)";
    }

    private void requireRecording(String what) {
        if (recording.isOff()) {
            throw new IllegalStateException(what + " needs a recording, but this fake was built with "
                    + "Recording.off(); build it with FakeCodexAppServer.builder().recording(Recording.all()) or "
                    + "Recording.last(n) to verify traffic");
        }
    }
}
