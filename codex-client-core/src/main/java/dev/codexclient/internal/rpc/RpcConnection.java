package dev.codexclient.internal.rpc;

import dev.codexclient.ServerRequestWithdrawnException;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.internal.telemetry.TelemetryEmitter;
import dev.codexclient.internal.time.Scheduler;
import dev.codexclient.protocol.RequestId;
import dev.codexclient.transport.MessageBuffer;
import dev.codexclient.transport.MessageSink;
import dev.codexclient.transport.Transport;
import dev.codexclient.transport.TransportTermination;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongUnaryOperator;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One JSON-RPC connection to an app-server. It wires four parts, each with one job, to a transport:
 * <ul>
 *   <li>{@link WireCodec}: lines ↔ messages;</li>
 *   <li>{@link RequestCorrelator}: the client's calls: ids, deadlines, overload retries;</li>
 *   <li>{@link ServerRequestDispatcher}: the server's requests: handlers, replies, withdrawals;</li>
 *   <li>{@link Lanes}: notifications, delivered in wire order per codex thread.</li>
 * </ul>
 *
 * <p>Threading: the transport's single reader thread calls {@link #onMessages}. It decodes the lines and then only hands it on: notification delivery, server-request handlers and the dependents of call
 * futures all run on the callback executor, so no user code ever runs on (or blocks) the reader thread. The one
 * thing the reader thread does itself is wake the threads blocked in {@code get()} or {@code join()} on a call's
 * future (see {@link CallFuture}): they run no user code on its behalf.
 */
public final class RpcConnection implements MessageSink, AutoCloseable {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(RpcConnection.class);
    }


    /** What the client layer above the connection implements. */
    public interface Handler {
        /** A notification, delivered on its lane: in wire order per codex thread, never on the reader thread. */
        void onNotification(IncomingNotification notification);

        /**
         * A server request, called where handlers run. The returned stage's reply is sent; an exceptional completion
         * becomes a JSON-RPC error reply too. The stage is cancelled when the server withdraws the request
         * ({@code serverRequest/resolved}) or the connection ends, and nothing is sent then.
         */
        CompletionStage<ServerRequestReply> onRequest(IncomingRequest request);

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
    private final WireCodec codec;
    /** The client's: its executor, handler threads and delivery lanes, shared with its other connections. */
    private final Callbacks callbacks;
    private final boolean ownsCallbacks;
    private final Handler handler;
    private final WireLog log;
    /** This connection's reader's batch of deliveries onto the client's lanes. */
    private final Lanes.Batch deliveries;
    private final RequestCorrelator calls;
    private final ServerRequestDispatcher serverRequests;
    private final CompletableFuture<CodexTransportException> terminated = new CompletableFuture<>();
    /** The thread that reads the transport, once it has read something. */
    private volatile Thread reader;
    /** Set when the client ends this connection itself: only then is a transport's requested end the client's. */
    private volatile boolean closing;

    /**
     * A connection of its own callbacks, for tests and tools: {@code executor} runs what the client layer would run.
     *
     * @param executor      runs listeners, handlers and the dependents of call futures
     * @param ownsCallbacks whether {@link #close()} shuts {@code executor} down
     * @param scheduler     the clock of request deadlines and overload backoff
     * @param redactor      masks secrets in what the connection logs or reports
     */
    public RpcConnection(Transport transport, WireCodec codec, RpcSettings settings, ExecutorService executor,
                         boolean ownsCallbacks, Scheduler scheduler, UnaryOperator<String> redactor, Handler handler) {
        this(transport, codec, settings, new Callbacks(executor), ownsCallbacks, scheduler, redactor, handler,
                RequestCorrelator::fullJitter, TelemetryEmitter.none());
    }

    /**
     * A connection of a client, which reports its requests to {@code telemetry}.
     *
     * @param callbacks     the client's callbacks, shared by its connections
     * @param ownsCallbacks whether {@link #close()} shuts the callback executor down
     * @param telemetry     where request telemetry goes; a disabled emitter costs nothing per call
     */
    public RpcConnection(Transport transport, WireCodec codec, RpcSettings settings, Callbacks callbacks,
                         boolean ownsCallbacks, Scheduler scheduler, UnaryOperator<String> redactor, Handler handler,
                         TelemetryEmitter telemetry) {
        this(transport, codec, settings, callbacks, ownsCallbacks, scheduler, redactor, handler,
                RequestCorrelator::fullJitter, telemetry);
    }

    RpcConnection(Transport transport, WireCodec codec, RpcSettings settings, ExecutorService executor,
                  boolean ownsCallbacks, Scheduler scheduler, UnaryOperator<String> redactor, Handler handler,
                  LongUnaryOperator jitter) {
        this(transport, codec, settings, new Callbacks(executor), ownsCallbacks, scheduler, redactor, handler, jitter,
                TelemetryEmitter.none());
    }

    private RpcConnection(Transport transport, WireCodec codec, RpcSettings settings, Callbacks callbacks,
                          boolean ownsCallbacks, Scheduler scheduler, UnaryOperator<String> redactor,
                          Handler handler, LongUnaryOperator jitter, TelemetryEmitter telemetry) {
        this.transport = transport;
        this.codec = codec;
        this.callbacks = callbacks;
        this.ownsCallbacks = ownsCallbacks;
        this.handler = handler;
        this.log = new WireLog(redactor, transport.describe());
        this.deliveries = callbacks.lanes().newBatch();
        this.calls = new RequestCorrelator(settings, scheduler, codec, this::send, callbacks::execute, redactor,
                jitter, transport.describe(), handler::refineError, telemetry, deliveries::deliver);
        this.serverRequests = new ServerRequestDispatcher(handler::onRequest, callbacks.handlers(), codec,
                this::sendReply, redactor);
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
        return calls.isClosed();
    }

    // ------------------------------------------------------------------------------------------------ sending

    /**
     * Sends a request and decodes its result into {@code resultType}; retries {@code -32001} per the settings.
     * The future's dependents run on the callback executor.
     *
     * @param params the params object, or {@code null} to omit the member
     * @param timeout the per-attempt timeout, or {@code null} for the default
     */
    public <R> CompletableFuture<R> call(String method, Object params, Class<R> resultType, Duration timeout) {
        return calls.call(method, params, resultType, timeout);
    }

    /**
     * {@link #call(String, Object, Class, Duration)} that tells {@code onAttempt} the id of each attempt before it
     * is sent (notifications that belong to the request carry it).
     */
    public <R> CompletableFuture<R> call(String method, Object params, Class<R> resultType, Duration timeout,
                                         Consumer<RequestId> onAttempt) {
        return calls.call(method, params, resultType, timeout, onAttempt);
    }

    /**
     * {@link #call(String, Object, Class, Duration, Consumer)} whose result is handed over on a delivery lane, in
     * wire order with the notifications (see {@link ResponseLane}).
     *
     * @param lane where the result is handed over; null for where it is read
     */
    public <R> CompletableFuture<R> call(String method, Object params, Class<R> resultType, Duration timeout,
                                         Consumer<RequestId> onAttempt, ResponseLane<? super R> lane) {
        return calls.call(method, params, resultType, timeout, onAttempt, lane);
    }

    /** Sends a notification (no response expected). */
    public void notify(String method, Object params) {
        if (isClosed()) {
            throw calls.closedException("cannot send " + method);
        }
        byte[] bytes;
        try {
            bytes = codec.encodeRequest(null, method, params);
        } catch (IOException e) {
            throw new CodexException("could not serialise the params of " + method, e);
        }
        send(bytes);
    }

    private void send(byte[] bytes) {
        log.trace("send", bytes);
        transport.send(bytes);
    }

    private void sendReply(byte[] bytes, IncomingRequest request) {
        if (isClosed()) {
            return;
        }
        try {
            send(bytes);
        } catch (RuntimeException e) {
            Log.LOG.debug("Could not reply to {} (id {}): {}", request.method(), request.id(), e.toString());
        }
    }

    // ------------------------------------------------------------------------------------------------ reading

    /**
     * A buffer of lines from the reader thread, decoded with one parser. Events are queued on their lanes as they
     * are read, and the lanes that were idle are started once, at the end: a stream of events wakes a delivery
     * thread once per read rather than once per event (each wake-up is a system call on the reader thread); the
     * first event of a buffer waits at most for the rest of that read to be decoded.
     */
    @Override
    public void onMessages(MessageBuffer messages) {
        // Everything a line can contain is survivable: this method must never throw into the reader thread.
        if (reader == null) {
            reader = Thread.currentThread();
        }
        deliveries.begin();
        try {
            codec.decode(messages, calls, this::route);
        } catch (RuntimeException e) {
            Log.LOG.error("Unexpected failure while decoding messages from {}; the connection keeps reading",
                    transport.describe(), e);
        } finally {
            deliveries.end();
        }
    }

    /** Routes one decoded message; a failure costs that message only. */
    private void route(Incoming incoming, MessageBuffer messages, int index) {
        try {
            log.trace("recv", messages.array(), messages.start(index), messages.length(index));
            route(incoming, messages.array(), messages.start(index), messages.length(index));
        } catch (RuntimeException e) {
            Log.LOG.error("Unexpected failure while handling a message from {}; the connection keeps reading",
                    transport.describe(), e);
        }
    }

    private void route(Incoming incoming, byte[] bytes, int offset, int length) {
        if (incoming instanceof Incoming.Notification n) {
            n.resolves().ifPresent(serverRequests::withdraw);
            IncomingNotification notification = n.notification();
            deliveries.deliver(notification.threadId().orElse(Lanes.GLOBAL),
                    () -> handler.onNotification(notification));
        } else if (incoming instanceof Incoming.Result r) {
            if (!calls.onResult(r.id(), r.value())) {
                log.anomaly("responses for unknown ids", bytes, offset, length);
            }
        } else if (incoming instanceof Incoming.Error e) {
            if (!calls.onError(e.id(), e.error())) {
                log.anomaly("responses for unknown ids", bytes, offset, length);
            }
        } else if (incoming instanceof Incoming.UndecodableResult u) {
            if (!calls.onUndecodableResult(u.id(), u.resultText(), u.cause())) {
                log.anomaly("responses for unknown ids", bytes, offset, length);
            }
        } else if (incoming instanceof Incoming.Request r) {
            serverRequests.dispatch(r.request());
        } else if (incoming instanceof Incoming.Unmatched) {
            log.anomaly("responses for unknown ids", bytes, offset, length);
        } else if (incoming instanceof Incoming.Malformed m) {
            log.anomaly(m.kind(), bytes, offset, length);
        }
    }

    @Override
    public void onOversizedMessage(long length) {
        Log.LOG.error("Discarded a message of {} bytes from {}: it exceeds the transport's line cap", length,
                transport.describe());
    }

    /** Whether the current thread is the transport's reader thread (possible only with an inline executor). */
    public boolean isReaderThread() {
        return reader == Thread.currentThread();
    }

    // ------------------------------------------------------------------------------------------------ closing

    /**
     * The client is about to end this connection itself (it may close the transport before {@link #close()}): the
     * transport's end that follows is the client's close. Any other end, even one the transport reports as
     * requested (its socket closed by other code than this client's), is a lost connection.
     */
    public void closing() {
        closing = true;
    }

    @Override
    public void onClosed(TransportTermination termination) {
        // The user's own close is no failure: an exit code and a stderr tail (codex's start-up warnings) would
        // only make it read like one.
        CodexTransportException cause;
        if (termination.requested() && closing) {
            cause = new CodexTransportException("the client was closed");
        } else if (termination.requested()) {
            cause = new CodexTransportException("the connection to " + transport.describe()
                    + " was lost: its transport was closed, not by the client (" + termination.reason() + ")",
                    termination.exitCode(), termination.stderrTail(), termination.cause().orElse(null));
        } else {
            cause = new CodexTransportException("the connection to " + transport.describe() + " ended: "
                    + termination.reason(), termination.exitCode(), termination.stderrTail(),
                    termination.cause().orElse(null));
        }
        shutdown(cause);
    }

    private void shutdown(CodexTransportException cause) {
        // The cause first: whoever sees the connection closed must also find why.
        if (!calls.fail(cause)) {
            return;
        }
        // A child process ends with its connection (it died, or the client stops it): its requests are gone. A
        // server of its own may live on and send them again to the client that next resumes their threads.
        serverRequests.cancelAll(transport.process().isPresent() ? ServerRequestWithdrawnException.Reason.GONE
                : ServerRequestWithdrawnException.Reason.DISCONNECTED);
        // Let already queued events drain to their listeners, then tell the client layer.
        Runnable finish = () -> {
            try {
                handler.onClosed(cause);
            } catch (RuntimeException e) {
                Log.LOG.warn("Close handler failed", e);
            } finally {
                terminated.complete(cause);
            }
        };
        if (callbacks.isShutdown()) {
            finish.run();
        } else {
            callbacks.onLane(Lanes.GLOBAL, finish);
        }
    }

    /**
     * Closes the transport and fails everything pending; waits a bounded time for listeners to drain. Called from
     * one of this connection's own callbacks (a listener, a handler, a future continuation), it does not wait: the
     * events still queued behind that callback are delivered after it returns, and the pool winds down then.
     */
    @Override
    public void close() {
        boolean fromCallback = callbacks.inCallback();
        closing = true;
        try {
            transport.close();
        } finally {
            shutdown(new CodexTransportException("the client was closed"));
            if (!fromCallback) {
                try {
                    terminated.get(5, TimeUnit.SECONDS);
                } catch (Exception e) {
                    Log.LOG.debug("Listeners did not drain within 5 s of close");
                }
            }
            if (ownsCallbacks) {
                callbacks.shutDown(!fromCallback);
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /** The cause behind the {@link CompletionException} / {@link ExecutionException} wrappers of futures. */
    public static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** For tests and diagnostics: how many client requests await a response. */
    public int pendingCount() {
        return calls.pendingCount();
    }

    /** For tests and diagnostics: how many server requests are being handled. */
    public int inflightServerRequestCount() {
        return serverRequests.inflightCount();
    }

    /** For tests and diagnostics: how many delivery lanes the client has (each has events queued or running). */
    public int laneCount() {
        return callbacks.lanes().size();
    }
}
