package dev.codexclient.internal.rpc;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexOverloadedException;
import dev.codexclient.errors.CodexProtocolException;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.protocol.RequestId;
import dev.codexclient.transport.MessageSink;
import dev.codexclient.transport.Transport;
import dev.codexclient.transport.TransportTermination;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One JSON-RPC connection to an app-server: correlates request ids, enforces timeouts, retries overloads, routes
 * server requests to a handler and notifications to per-thread lanes.
 *
 * <p>Threading: the transport's single reader thread calls {@link #onMessage(byte[])}. It parses the line and
 * then only enqueues: response completion, notification delivery and server-request handlers all run on the
 * callback executor, so no user code ever runs on (or blocks) the reader thread. The one thing the reader thread
 * does itself is wake the threads blocked in {@code get()} or {@code join()} on a call's future (see
 * {@link CallFuture}): they run no user code on its behalf.
 */
public final class RpcConnection implements MessageSink, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RpcConnection.class);
    private static final Logger WIRE = LoggerFactory.getLogger("dev.codexclient.wire");
    private static final String GLOBAL_LANE = "";
    private static final int LOGGED_LINE_LIMIT = 2_000;
    private static final int WARN_ANOMALIES = 10;

    /** What the client layer above the connection implements. */
    public interface Handler {
        /** A notification, delivered on its lane: in wire order per codex thread, never on the reader thread. */
        void onNotification(IncomingNotification notification);

        /**
         * Called on the reader thread with every line before the connection routes it: the notification the line
         * holds, decoded in one pass with its thread and turn, or {@code null} to leave the line to the
         * connection's own routing. It must be quick, must not block and must not throw.
         */
        default IncomingNotification decodeLine(byte[] line) {
            return null;
        }

        /**
         * A server request, called on the callback executor. The returned stage's value is serialised as the
         * {@code result}; an exceptional completion becomes a JSON-RPC error reply. The stage is cancelled when
         * the server withdraws the request ({@code serverRequest/resolved}).
         */
        CompletionStage<?> onRequest(IncomingRequest request);

        /** The connection ended; called once, after every pending request has been failed. */
        void onClosed(CodexTransportException cause);

        /**
         * Gives an error response a more specific type before it fails its call (e.g. a method the server does not
         * know). Called on the reader thread: it must be quick, must not block and must not throw.
         */
        default CodexRpcException refineError(CodexRpcException error) {
            return error;
        }
    }

    private final Transport transport;
    private final ObjectMapper mapper;
    private final RpcSettings settings;
    private final ExecutorService callbacks;
    private final boolean ownsCallbacks;
    private final UnaryOperator<String> redactor;
    private final Handler handler;

    private final AtomicLong nextId = new AtomicLong();
    private final Map<RequestId, Pending> pending = new ConcurrentHashMap<>();
    private final Map<RequestId, CompletableFuture<?>> inflightServerRequests = new ConcurrentHashMap<>();
    private final Map<String, SerialExecutor> lanes = new ConcurrentHashMap<>();
    /** Lanes that became busy during the current batch (reader thread only, see {@link #onMessages}). */
    private final List<SerialExecutor> lanesToStart = new ArrayList<>();
    private boolean inBatch;
    /** The lane looked up last; lanes are never removed, so a stale entry is still the right lane for its key. */
    private volatile LaneOf lastLane;
    private final Map<String, AtomicLong> anomalies = new ConcurrentHashMap<>();
    private final ScheduledThreadPoolExecutor timer;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final CompletableFuture<CodexTransportException> terminated = new CompletableFuture<>();
    /** Why the connection ended, set just before {@link #closed}; null while open. */
    private final AtomicReference<CodexTransportException> closeCause = new AtomicReference<>();

    /** The connection whose callback the current thread is running, if any (see {@link #close()}). */
    private static final ThreadLocal<RpcConnection> IN_CALLBACK = new ThreadLocal<>();

    /** Longest timeout honoured: keeps deadlines comparable by difference ({@link System#nanoTime()} wraps). */
    private static final long MAX_TIMEOUT_NANOS = Long.MAX_VALUE / 4;

    /** One call, across its attempts: an overloaded request is sent again under a new id. */
    private final class Call<R> {
        final String method;
        final Object params;
        final Class<R> resultType;
        final Duration timeout;
        final long startedNanos = System.nanoTime();
        /** The id of the attempt in flight. */
        volatile RequestId current;
        // A caller that cancels (or times out its own wait) must not leave the entry behind.
        final CallFuture<R> future = new CallFuture<>(() -> {
            RequestId id = current;
            if (id != null) {
                pending.remove(id);
            }
        });

        Call(String method, Object params, Class<R> resultType, Duration timeout) {
            this.method = method;
            this.params = params;
            this.resultType = resultType;
            this.timeout = timeout;
        }
    }

    /** A lane and the key it was looked up by (see {@link #lane}). */
    private record LaneOf(String key, SerialExecutor lane) {
    }

    /** One attempt awaiting its response; {@code deadline} is in {@link System#nanoTime()} terms. */
    private record Pending(RequestId id, Call<?> call, int attempt, long deadline) {
    }

    /**
     * Timeouts are watched by one timer task at a time, scheduled for the earliest deadline known when it was
     * scheduled. A task per request would cost a timer wake-up per call (each new task heads the timer's queue
     * when it is the only call in flight); with calls that share a timeout, a new deadline is later than the one
     * already watched and registering it costs one volatile read. The check that fires fails what has expired
     * and schedules itself again for the earliest deadline left.
     */
    private static final class DeadlineCheck {
        final long at;
        ScheduledFuture<?> task;

        DeadlineCheck(long at) {
            this.at = at;
        }
    }

    private final Object deadlineLock = new Object();
    /** The check that will see every pending deadline (none is earlier than {@code at}), or null when none. */
    private volatile DeadlineCheck deadlineCheck;

    public RpcConnection(Transport transport, ObjectMapper mapper, RpcSettings settings, ExecutorService callbacks,
                         boolean ownsCallbacks, UnaryOperator<String> redactor, Handler handler) {
        this.transport = transport;
        this.mapper = mapper;
        this.settings = settings;
        this.callbacks = callbacks;
        this.ownsCallbacks = ownsCallbacks;
        this.redactor = redactor;
        this.handler = handler;
        this.timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "codex-rpc-timer");
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
        timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /** Starts reading from the transport. */
    public void start() {
        transport.start(this);
    }

    public String describe() {
        return transport.describe();
    }

    /** Completes when the connection has ended, with the exception every pending call failed with. */
    public CompletableFuture<CodexTransportException> terminated() {
        return terminated;
    }

    public boolean isClosed() {
        return closed.get();
    }

    // ------------------------------------------------------------------------------------------------ requests

    /**
     * Sends a request and decodes its result into {@code resultType}; retries {@code -32001} per the settings.
     *
     * @param params the params object, or {@code null} to omit the member
     * @param timeout the per-attempt timeout, or {@code null} for the default
     */
    public <R> CompletableFuture<R> call(String method, Object params, Class<R> resultType, Duration timeout) {
        Call<R> call = new Call<>(method, params, resultType, timeout == null ? settings.requestTimeout() : timeout);
        attempt(call, 1);
        return call.future;
    }

    private void attempt(Call<?> call, int attempt) {
        if (call.future.isDone()) {
            return;
        }
        String method = call.method;
        if (closed.get()) {
            finish(call, null, closedException("cannot send " + method));
            return;
        }
        RequestId id = RequestId.of(nextId.getAndIncrement());
        call.current = id;
        byte[] bytes;
        try {
            bytes = encode(id, method, call.params);
        } catch (IOException | RuntimeException e) {
            finish(call, null, new CodexException("could not serialise the params of " + method, e));
            return;
        }
        long deadline = System.nanoTime() + timeoutNanos(call.timeout);
        Pending p = new Pending(id, call, attempt, deadline);
        pending.put(id, p);
        // close() may have swept the map between the check above and the put: sweep this entry ourselves.
        if (closed.get()) {
            failPending(id, closedException("cannot send " + method));
            return;
        }
        // A cancel between setting current and the put found nothing to remove.
        if (call.future.isCancelled()) {
            pending.remove(id, p);
            return;
        }
        try {
            watchDeadline(deadline);
        } catch (RejectedExecutionException e) {
            failPending(id, closedException("cannot send " + method));
            return;
        }
        try {
            trace("send", bytes);
            transport.send(bytes);
        } catch (RuntimeException e) {
            failPending(id, e instanceof CodexException ce ? ce
                    : new CodexTransportException("could not send " + method + " to " + transport.describe(), e));
        }
    }

    /**
     * Ends a call. Threads blocked on its future wake now, on this thread (possibly the reader: they run no user
     * code); the future's dependents run on the callback executor, or on a thread that was blocked waiting for it
     * (see {@link CallFuture}).
     */
    private <R> void finish(Call<R> call, R value, Throwable error) {
        CallFuture<R> future = call.future;
        if (!future.settle(value, error) || !future.claimPublication()) {
            return;
        }
        try {
            runCallback(future::publish);
        } catch (RejectedExecutionException e) {
            future.publish();
        }
    }

    /** An error response: a {@code -32001} overload is retried after a backoff, anything else ends the call. */
    private void failAttempt(Pending p, CodexRpcException rpc) {
        Call<?> call = p.call();
        if (rpc.code() != CodexRpcException.SERVER_OVERLOADED) {
            finish(call, null, rpc);
            return;
        }
        int attempt = p.attempt();
        long elapsed = System.nanoTime() - call.startedNanos;
        long delay = backoffNanos(attempt);
        if (attempt < settings.retryMaxAttempts() && !closed.get()
                && elapsed + delay < settings.retryMaxTotal().toNanos()) {
            LOG.debug("{} overloaded (attempt {}), retrying in {} ms", call.method, attempt, delay / 1_000_000);
            try {
                timer.schedule(() -> attempt(call, attempt + 1), delay, TimeUnit.NANOSECONDS);
                return;
            } catch (RejectedExecutionException closing) {
                // fall through: the connection is closing, report the overload as it stands
            }
        }
        finish(call, null, new CodexOverloadedException(call.method, rpc.serverMessage(), rpc.data().orElse(null),
                attempt));
    }

    /** Full jitter: uniform in [0, min(max, initial * 2^(attempt-1))]. */
    private long backoffNanos(int attempt) {
        long initial = settings.retryInitialBackoff().toNanos();
        long cap = settings.retryMaxBackoff().toNanos();
        long bound = attempt >= 31 ? cap : Math.min(cap, initial << (attempt - 1));
        return bound <= 0 ? 0 : ThreadLocalRandom.current().nextLong(bound + 1);
    }

    private static long timeoutNanos(Duration timeout) {
        try {
            return Math.min(timeout.toNanos(), MAX_TIMEOUT_NANOS);
        } catch (ArithmeticException tooLong) {
            return MAX_TIMEOUT_NANOS;
        }
    }

    /**
     * Makes sure a check runs no later than {@code deadline}. Called after the request is in {@link #pending}:
     * a firing check unregisters itself (under the lock) before it scans, so a request either was registered while
     * that check was still the watched one, and is then in the map before the scan starts and is seen by it, or
     * finds no check (or only the one that scan scheduled) and schedules its own when it is earlier.
     *
     * @throws RejectedExecutionException when the connection is closing
     */
    private void watchDeadline(long deadline) {
        DeadlineCheck current = deadlineCheck;
        if (current != null && deadline - current.at >= 0) {
            return;
        }
        synchronized (deadlineLock) {
            current = deadlineCheck;
            if (current != null && deadline - current.at >= 0) {
                return;
            }
            DeadlineCheck check = new DeadlineCheck(deadline);
            check.task = timer.schedule(() -> checkDeadlines(check), deadline - System.nanoTime(),
                    TimeUnit.NANOSECONDS);
            deadlineCheck = check;
            if (current != null) {
                current.task.cancel(false);
            }
        }
    }

    /** Runs on the timer: fails every request whose deadline has passed, then watches the earliest one left. */
    private void checkDeadlines(DeadlineCheck self) {
        synchronized (deadlineLock) {
            // From here on a new request schedules its own check, unless one earlier than its deadline exists.
            if (deadlineCheck == self) {
                deadlineCheck = null;
            }
        }
        long now = System.nanoTime();
        boolean any = false;
        long earliest = 0;
        for (Pending p : pending.values()) {
            if (p.deadline() - now <= 0) {
                if (pending.remove(p.id(), p)) {
                    Call<?> call = p.call();
                    finish(call, null, new CodexTimeoutException(call.method, p.id().toString(), call.timeout));
                }
            } else if (!any || p.deadline() - earliest < 0) {
                earliest = p.deadline();
                any = true;
            }
        }
        if (any) {
            try {
                watchDeadline(earliest);
            } catch (RejectedExecutionException closing) {
                // close() fails whatever is still pending
            }
        }
    }

    private void failPending(RequestId id, Throwable error) {
        Pending p = pending.remove(id);
        if (p != null) {
            finish(p.call(), null, error);
        }
    }

    /** Sends a notification (no response expected). */
    public void notify(String method, Object params) {
        if (closed.get()) {
            throw closedException("cannot send " + method);
        }
        byte[] bytes;
        try {
            bytes = encode(null, method, params);
        } catch (IOException e) {
            throw new CodexException("could not serialise the params of " + method, e);
        }
        trace("send", bytes);
        transport.send(bytes);
    }

    private byte[] encode(RequestId id, String method, Object params) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(128);
        try (JsonGenerator g = mapper.getFactory().createGenerator(out)) {
            g.writeStartObject();
            if (id != null) {
                g.writeFieldName("id");
                writeId(g, id);
            }
            g.writeStringField("method", method);
            if (params instanceof JsonNode tree) {
                // A tree writes itself: looking up a serializer for it would resolve its class's generic hierarchy,
                // a noticeable share of the handshake (whose params are a tree) in a fresh JVM.
                g.writeFieldName("params");
                tree.serialize(g, mapper.getSerializerProviderInstance());
            } else if (params != null) {
                g.writeFieldName("params");
                mapper.writeValue(g, params);
            }
            g.writeEndObject();
        }
        return out.toByteArray();
    }

    private static void writeId(JsonGenerator g, RequestId id) throws IOException {
        if (id instanceof RequestId.Number n) {
            g.writeNumber(n.value());
        } else {
            g.writeString(((RequestId.Text) id).value());
        }
    }

    // ------------------------------------------------------------------------------------------------ reading

    @Override
    public void onMessage(byte[] line) {
        // Everything a line can contain is survivable: this method must never throw into the reader thread.
        try {
            trace("recv", line);
            IncomingNotification decoded = handler.decodeLine(line);
            if (decoded != null) {
                // The hot path (token deltas, command output): tokenized once, here, and handed to its lane typed.
                deliver(lane(decoded.threadId().orElse(GLOBAL_LANE)), () -> handler.onNotification(decoded));
                return;
            }
            Envelope envelope;
            try {
                envelope = Envelope.scan(mapper, line, this::readResult);
            } catch (Unbound e) {
                // The result does not bind into what its call expects, or is not JSON at all: scan again without
                // binding, and let the tree path report a response whose result is wrong as it always has.
                try {
                    envelope = Envelope.scan(mapper.getFactory(), line);
                } catch (IOException notJson) {
                    anomaly("lines that are not JSON", "Skipping a line from {} that is not JSON: {}",
                            transport.describe(), preview(line));
                    return;
                }
                if (envelope != null && envelope.isNotification()) {
                    onNotification(envelope, line);
                } else {
                    onTree(line);
                }
                return;
            } catch (IOException e) {
                anomaly("lines that are not JSON", "Skipping a line from {} that is not JSON: {}",
                        transport.describe(), preview(line));
                return;
            }
            if (envelope == null) {
                anomaly("messages that are not JSON objects", "Skipping a message from {} that is not a JSON "
                        + "object: {}", transport.describe(), preview(line));
            } else if (envelope.isNotification()) {
                onNotification(envelope, line);
            } else if (envelope.methodIsText()) {
                // A server request: its handler gets the whole message as a tree.
                onTree(line);
            } else if (envelope.response() != null && envelope.response().id() != null) {
                onResponse(envelope.response(), line);
            } else {
                anomaly("messages of no known kind", "Skipping a message that is neither request, response "
                        + "nor notification: {}", preview(line));
            }
        } catch (RuntimeException e) {
            LOG.error("Unexpected failure while handling a message from {}; the connection keeps reading",
                    transport.describe(), e);
        }
    }

    /** Handles a line that is not a notification from its tree: server requests, and responses out of the usual. */
    private void onTree(byte[] line) {
        JsonNode node;
        try {
            node = mapper.readTree(line);
        } catch (IOException e) {
            anomaly("lines that are not JSON", "Skipping a line from {} that is not JSON: {}",
                    transport.describe(), preview(line));
            return;
        }
        if (!(node instanceof ObjectNode message)) {
            anomaly("messages that are not JSON objects", "Skipping a message from {} that is not a JSON "
                    + "object: {}", transport.describe(), preview(line));
            return;
        }
        JsonNode method = message.get("method");
        JsonNode id = message.get("id");
        if (method != null && method.isTextual()) {
            // Notifications left on the scan path above: this is a server request.
            Optional<RequestId> requestId = toRequestId(id);
            if (requestId.isEmpty()) {
                anomaly("server requests with invalid ids", "Skipping a server request with an invalid id: {}",
                        preview(line));
                return;
            }
            onServerRequest(new IncomingRequest(requestId.get(), method.textValue(), message));
        } else if (id != null && (message.has("result") || message.has("error"))) {
            onResponse(id, message);
        } else {
            anomaly("messages of no known kind", "Skipping a message that is neither request, response "
                    + "nor notification: {}", preview(line));
        }
    }

    /**
     * A batch from the reader thread: events are queued on their lanes as they are read, and the lanes that were
     * idle are started once, at the end. A stream of events wakes a delivery thread once per read rather than
     * once per event (each wake-up is a system call on the reader thread); the first event of a batch waits at
     * most for the rest of that read to be decoded.
     */
    @Override
    public void onMessages(List<byte[]> messages) {
        inBatch = true;
        try {
            for (byte[] message : messages) {
                onMessage(message);
            }
        } finally {
            inBatch = false;
            for (SerialExecutor lane : lanesToStart) {
                lane.start();
            }
            lanesToStart.clear();
        }
    }

    /** Queues a notification's delivery on its lane; inside a batch, the lane starts when the batch ends. */
    private void deliver(SerialExecutor lane, Runnable task) {
        if (!inBatch) {
            lane.execute(task);
        } else if (lane.enqueue(task)) {
            lanesToStart.add(lane);
        }
    }

    @Override
    public void onOversizedMessage(long length) {
        LOG.error("Discarded a message of {} bytes from {}: it exceeds the transport's line cap", length,
                transport.describe());
    }

    /** A result bound by {@link #readResult} for the attempt it was read for. */
    private record Bound(Pending pending, Object value) {
    }

    /** A result that would not bind: the line goes down the tree path. */
    private static final class Unbound extends IOException {
        Unbound(Throwable cause) {
            super(cause);
        }
    }

    /**
     * Reads a response's {@code result} during the scan. When the {@code id} came first (codex always writes it
     * first) and names a pending call, the value is bound straight into that call's result type, so a response
     * is parsed once; otherwise it is skipped, and read from a tree if it turns out to be needed.
     */
    private Object readResult(JsonNode id, JsonParser parser) throws IOException {
        Pending p = id == null ? null : toRequestId(id).map(pending::get).orElse(null);
        if (p == null) {
            parser.skipChildren();
            return null;
        }
        Class<?> type = p.call().resultType;
        try {
            return new Bound(p, type.cast(decodeResult(type, parser)));
        } catch (IOException | RuntimeException e) {
            throw new Unbound(e);
        }
    }

    /** A response found by the scan. */
    private void onResponse(Envelope.Response response, byte[] line) {
        Pending p = take(response.id());
        if (p == null) {
            return;
        }
        if (isError(response.error())) {
            failAttempt(p, response.error());
        } else if (response.result() instanceof Bound bound && bound.pending() == p) {
            finishBound(p.call(), bound.value());
        } else if (!response.hasResult()) {
            succeed(p.call(), null);
        } else {
            // Not read for this attempt (it came before the id, or another id followed it): read it from a tree.
            JsonNode message;
            try {
                message = mapper.readTree(line);
            } catch (IOException e) {
                // The scan read every token, so this takes a parser limit only tree building hits; the attempt is
                // no longer pending, so it must end here.
                finish(p.call(), null, new CodexProtocolException("the response to " + p.call().method
                        + " could not be read", e));
                return;
            }
            succeed(p.call(), message.get("result"));
        }
    }

    /** A response read as a tree. */
    private void onResponse(JsonNode idNode, ObjectNode message) {
        Pending p = take(idNode);
        if (p == null) {
            return;
        }
        JsonNode error = message.get("error");
        if (isError(error)) {
            failAttempt(p, error);
            return;
        }
        succeed(p.call(), message.get("result"));
    }

    /** Removes the attempt a response answers; null (and logged) when none is pending under its id. */
    private Pending take(JsonNode idNode) {
        Pending p = toRequestId(idNode).map(pending::remove).orElse(null);
        if (p == null) {
            anomaly("responses for unknown ids", "Dropping a response for unknown request id {} (timed out, "
                    + "cancelled, or never sent)", idNode);
        }
        return p;
    }

    private static boolean isError(JsonNode error) {
        return error != null && !error.isNull();
    }

    private void failAttempt(Pending p, JsonNode error) {
        int code = error.path("code").asInt(CodexRpcException.INTERNAL_ERROR);
        // A server may echo what it was sent (an API key it rejects): mask known secrets before the text
        // travels on in an exception that ends up in logs.
        String text = redactor.apply(error.path("message").asText(""));
        JsonNode data = error.get("data");
        failAttempt(p, handler.refineError(new CodexRpcException(p.call().method, code, text,
                data == null || data.isNull() ? null : RedactedJson.copy(data, redactor))));
    }

    private <R> void finishBound(Call<R> call, Object value) {
        finish(call, call.resultType.cast(value), null);
    }

    private <R> void succeed(Call<R> call, JsonNode result) {
        R value;
        try {
            value = call.resultType.cast(decodeResult(call.resultType, result));
        } catch (IOException | RuntimeException e) {
            finish(call, null, new CodexProtocolException("the result of " + call.method + " does not decode into "
                    + call.resultType.getSimpleName() + ": " + redactor.apply(truncate(String.valueOf(result))), e));
            return;
        }
        finish(call, value, null);
    }

    private Object decodeResult(Class<?> type, JsonNode result) throws IOException {
        if (type == Void.class) {
            return null;
        }
        if (JsonNode.class.isAssignableFrom(type)) {
            return result == null ? mapper.nullNode() : result;
        }
        if (result == null || result.isNull()) {
            // Methods whose result is an empty object are sometimes answered with null; build the empty value.
            result = mapper.createObjectNode();
        }
        return mapper.treeToValue(result, type);
    }

    /** {@link #decodeResult(Class, JsonNode)} from the parser's current token, without a tree. */
    private Object decodeResult(Class<?> type, JsonParser parser) throws IOException {
        if (type == Void.class) {
            parser.skipChildren();
            return null;
        }
        if (JsonNode.class.isAssignableFrom(type)) {
            return mapper.readTree(parser);
        }
        if (parser.currentToken() == JsonToken.VALUE_NULL) {
            return mapper.treeToValue(mapper.createObjectNode(), type);
        }
        return mapper.readValue(parser, type);
    }

    /** Hands a notification the reader thread scanned (not decoded) to its lane. */
    private void onNotification(Envelope envelope, byte[] line) {
        if ("serverRequest/resolved".equals(envelope.method())) {
            envelope.requestId().ifPresent(this::withdraw);
        }
        IncomingNotification n = new IncomingNotification(envelope.method(), line, envelope.threadId(),
                envelope.turnId(), mapper);
        deliver(lane(envelope.threadId().orElse(GLOBAL_LANE)), () -> handler.onNotification(n));
    }

    /**
     * Runs {@code task} on the delivery lane of a codex thread, after every event of that thread already queued.
     * The client layer keeps per-thread state confined to its lane this way.
     */
    public void executeOnLane(String threadId, Runnable task) {
        lane(threadId).execute(task);
    }

    private SerialExecutor lane(String key) {
        // Consecutive events mostly belong to one thread: compare with the last key (each event carries a fresh
        // string, so a map lookup would hash it every time).
        LaneOf last = lastLane;
        if (last != null && last.key().equals(key)) {
            return last.lane();
        }
        SerialExecutor lane = lanes.computeIfAbsent(key, k -> new SerialExecutor(this::runCallback));
        lastLane = new LaneOf(key, lane);
        return lane;
    }

    /**
     * Runs {@code task} on the callback executor, like a listener (so a {@link #close()} from inside it does not
     * wait for itself); runs it on the calling thread once the executor has been shut down.
     */
    public void executeCallback(Runnable task) {
        try {
            runCallback(task);
        } catch (RejectedExecutionException e) {
            task.run();
        }
    }

    /** Runs user-facing work on the callback executor, marked so that {@link #close()} can tell. */
    private void runCallback(Runnable task) {
        callbacks.execute(marked(task));
    }

    private Runnable marked(Runnable task) {
        return () -> {
            RpcConnection previous = IN_CALLBACK.get();
            IN_CALLBACK.set(this);
            try {
                task.run();
            } finally {
                // set, not remove: removing expunges the entry (and clears its weak reference) for every event.
                IN_CALLBACK.set(previous);
            }
        };
    }

    /** The server no longer wants an answer: cancel the handler, and make sure no reply goes out. */
    private void withdraw(RequestId id) {
        CompletableFuture<?> running = inflightServerRequests.remove(id);
        if (running != null) {
            LOG.debug("Server withdrew request {}; cancelling its handler", id);
            running.cancel(true);
        }
    }

    private void onServerRequest(IncomingRequest request) {
        CompletableFuture<Object> answer = new CompletableFuture<>();
        inflightServerRequests.put(request.id(), answer);
        AtomicBoolean replied = new AtomicBoolean();
        answer.whenComplete((value, error) -> {
            // Removed only if still ours: a withdrawn request was removed by withdraw() and gets no reply.
            boolean ours = inflightServerRequests.remove(request.id(), answer);
            if (!ours || answer.isCancelled() || !replied.compareAndSet(false, true)) {
                return;
            }
            if (error == null) {
                reply(request, value);
            } else {
                replyError(request, unwrap(error));
            }
        });
        try {
            runCallback(() -> {
                if (answer.isDone()) {
                    return;
                }
                try {
                    CompletionStage<?> stage = handler.onRequest(request);
                    if (stage == null) {
                        answer.complete(null);
                        return;
                    }
                    CompletableFuture<?> cf = stage.toCompletableFuture();
                    // Cancelling our future (withdrawn request) propagates to the handler's own stage.
                    answer.whenComplete((v, e) -> {
                        if (answer.isCancelled()) {
                            cf.cancel(true);
                        }
                    });
                    cf.whenComplete((v, e) -> {
                        if (e == null) {
                            answer.complete(v);
                        } else {
                            answer.completeExceptionally(e);
                        }
                    });
                } catch (Throwable t) {
                    answer.completeExceptionally(t);
                }
            });
        } catch (RejectedExecutionException e) {
            answer.completeExceptionally(new CodexException("client is closing"));
        }
    }

    private void reply(IncomingRequest request, Object result) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream(128);
            try (JsonGenerator g = mapper.getFactory().createGenerator(out)) {
                g.writeStartObject();
                g.writeFieldName("id");
                writeId(g, request.id());
                g.writeFieldName("result");
                if (result == null) {
                    g.writeStartObject();
                    g.writeEndObject();
                } else {
                    mapper.writeValue(g, result);
                }
                g.writeEndObject();
            }
            sendQuietly(out.toByteArray(), request);
        } catch (IOException | RuntimeException e) {
            LOG.warn("Could not serialise the reply to {} (id {}); answering with an internal error",
                    request.method(), request.id(), e);
            replyError(request, new CodexException("the client could not serialise its reply"));
        }
    }

    private void replyError(IncomingRequest request, Throwable error) {
        int code;
        String message;
        JsonNode data = null;
        if (error instanceof CodexRpcException rpc) {
            code = rpc.code();
            message = rpc.serverMessage();
            data = rpc.data().orElse(null);
        } else if (error instanceof IllegalArgumentException) {
            code = CodexRpcException.INVALID_PARAMS;
            message = String.valueOf(error.getMessage());
        } else if (error instanceof UnsupportedOperationException) {
            code = CodexRpcException.METHOD_NOT_FOUND;
            message = String.valueOf(error.getMessage());
        } else {
            code = CodexRpcException.INTERNAL_ERROR;
            // Only the message travels: stack traces stay in our logs.
            message = "client handler failed: " + error.getClass().getSimpleName()
                    + (error.getMessage() == null ? "" : ": " + error.getMessage());
            LOG.warn("Handler for {} (id {}) failed", request.method(), request.id(), error);
        }
        ObjectNode reply = mapper.createObjectNode();
        reply.set("id", request.id() instanceof RequestId.Number n ? reply.numberNode(n.value())
                : reply.textNode(((RequestId.Text) request.id()).value()));
        ObjectNode err = reply.putObject("error");
        err.put("code", code);
        err.put("message", redactor.apply(message));
        if (data != null) {
            err.set("data", data);
        }
        try {
            sendQuietly(mapper.writeValueAsBytes(reply), request);
        } catch (IOException e) {
            LOG.error("Could not serialise an error reply", e);
        }
    }

    private void sendQuietly(byte[] bytes, IncomingRequest request) {
        if (closed.get()) {
            return;
        }
        try {
            trace("send", bytes);
            transport.send(bytes);
        } catch (RuntimeException e) {
            LOG.debug("Could not reply to {} (id {}): {}", request.method(), request.id(), e.toString());
        }
    }

    // ------------------------------------------------------------------------------------------------ closing

    @Override
    public void onClosed(TransportTermination termination) {
        // The user's own close is no failure: an exit code and a stderr tail (codex's start-up warnings) would
        // only make it read like one.
        CodexTransportException cause = termination.requested()
                ? new CodexTransportException("the client was closed")
                : new CodexTransportException("the connection to " + transport.describe() + " ended: "
                        + termination.reason(), termination.exitCode(), termination.stderrTail(),
                        termination.cause().orElse(null));
        shutdown(cause);
    }

    private void shutdown(CodexTransportException cause) {
        // The cause first: whoever sees the connection closed must also find why.
        if (!closeCause.compareAndSet(null, cause)) {
            return;
        }
        closed.set(true);
        timer.shutdownNow();
        List<Pending> failed = new ArrayList<>(pending.values());
        pending.clear();
        for (Pending p : failed) {
            finish(p.call(), null, cause);
        }
        for (CompletableFuture<?> running : new ArrayList<>(inflightServerRequests.values())) {
            running.cancel(true);
        }
        inflightServerRequests.clear();
        // Let already queued events drain to their listeners, then tell the client layer.
        Runnable finish = () -> {
            try {
                handler.onClosed(cause);
            } catch (RuntimeException e) {
                LOG.warn("Close handler failed", e);
            } finally {
                terminated.complete(cause);
            }
        };
        if (callbacks.isShutdown()) {
            finish.run();
        } else {
            lane(GLOBAL_LANE).execute(finish);
        }
    }

    /**
     * Closes the transport and fails everything pending; waits a bounded time for listeners to drain. Called from
     * one of this connection's own callbacks (a listener, a handler, a future continuation), it does not wait: the
     * events still queued behind that callback are delivered after it returns, and the pool winds down then.
     */
    @Override
    public void close() {
        boolean fromCallback = IN_CALLBACK.get() == this;
        try {
            transport.close();
        } finally {
            shutdown(new CodexTransportException("the client was closed"));
            if (!fromCallback) {
                try {
                    terminated.get(5, TimeUnit.SECONDS);
                } catch (Exception e) {
                    LOG.debug("Listeners did not drain within 5 s of close");
                }
            }
            if (ownsCallbacks) {
                callbacks.shutdown();
                if (!fromCallback) {
                    try {
                        if (!callbacks.awaitTermination(2, TimeUnit.SECONDS)) {
                            callbacks.shutdownNow();
                        }
                    } catch (InterruptedException e) {
                        callbacks.shutdownNow();
                        Thread.currentThread().interrupt();
                    }
                }
            }
        }
    }

    private CodexTransportException closedException(String what) {
        // Not terminated: it completes only after queued events have drained, while a caller woken by the failure
        // of its pending call may already be making the next one.
        CodexTransportException cause = closeCause.get();
        if (cause != null) {
            return new CodexTransportException(what + ": " + cause.getMessage(), cause.exitCode(),
                    "", cause);
        }
        return new CodexTransportException(what + ": the connection is closed");
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private static Optional<RequestId> toRequestId(JsonNode id) {
        if (id == null) {
            return Optional.empty();
        }
        if (id.isTextual()) {
            return Optional.of(RequestId.of(id.textValue()));
        }
        if (id.isIntegralNumber() && id.canConvertToLong()) {
            return Optional.of(RequestId.of(id.longValue()));
        }
        return Optional.empty();
    }

    /** The cause behind the {@link CompletionException} / ExecutionException wrappers of futures. */
    public static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof java.util.concurrent.ExecutionException)
                && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private void trace(String direction, byte[] bytes) {
        if (WIRE.isTraceEnabled()) {
            WIRE.trace("{} {}", direction, redactor.apply(truncate(new String(bytes,
                    java.nio.charset.StandardCharsets.UTF_8))));
        }
    }

    private String preview(byte[] line) {
        return redactor.apply(truncate(new String(line, 0, Math.min(line.length, LOGGED_LINE_LIMIT * 4),
                java.nio.charset.StandardCharsets.UTF_8)));
    }

    private static String truncate(String s) {
        return s.length() <= LOGGED_LINE_LIMIT ? s
                : s.substring(0, LOGGED_LINE_LIMIT) + "… (" + s.length() + " chars)";
    }

    /**
     * Logs bad input from the peer: the first few of each kind at WARN, then only a count every thousand, the rest
     * at DEBUG. A peer that writes garbage in a loop must not be able to flood the application's logs.
     */
    private void anomaly(String kind, String format, Object... args) {
        long n = anomalies.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
        if (n <= WARN_ANOMALIES) {
            LOG.warn(format, args);
            if (n == WARN_ANOMALIES) {
                LOG.warn("{} {} from {}; further ones are logged at DEBUG with a count every 1000", n, kind,
                        transport.describe());
            }
        } else {
            if (n % 1000 == 0) {
                LOG.warn("{} {} from {} so far", n, kind, transport.describe());
            }
            LOG.debug(format, args);
        }
    }

    /** For tests and diagnostics: how many client requests await a response. */
    public int pendingCount() {
        return pending.size();
    }

    /** For tests and diagnostics: how many server requests are being handled. */
    public int inflightServerRequestCount() {
        return inflightServerRequests.size();
    }

}
