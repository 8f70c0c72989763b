package dev.codexclient.internal.rpc;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexOverloadedException;
import dev.codexclient.errors.CodexProtocolException;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.internal.telemetry.TelemetryEmitter;
import dev.codexclient.internal.time.Scheduler;
import dev.codexclient.protocol.RequestId;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.LongUnaryOperator;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's requests in flight: gives each attempt an id, matches responses to their calls, fails a call whose
 * deadline passes, sends an overloaded request ({@code -32001}) again after a backoff, and fails everything when
 * the connection ends. Every outcome removes the attempt from the table.
 *
 * <p>Threading: {@link #call} from any thread; the {@code on…} methods from the reader thread; deadline checks and
 * retries on the scheduler. A call's future is settled wherever its outcome is learned (see {@link CallFuture}); its
 * dependents run on the callback executor.
 */
final class RequestCorrelator implements ResultTypes {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(RequestCorrelator.class);
    }


    /** Writes one encoded message to the peer; throws when it cannot. */
    interface Sender {
        void send(byte[] message);
    }

    private final RpcSettings settings;
    private final Scheduler scheduler;
    private final WireCodec codec;
    private final Sender sender;
    private final Executor callbacks;
    private final UnaryOperator<String> redactor;
    private final LongUnaryOperator jitter;
    private final String peer;

    private final AtomicLong nextId = new AtomicLong();
    private final Map<RequestId, Pending> pending = new ConcurrentHashMap<>();
    /** Calls waiting out an overload backoff: in no table of ids, but still to be failed if the connection ends. */
    private final Set<Call<?>> backingOff = ConcurrentHashMap.newKeySet();
    /** Why the connection ended; null while it is open. */
    private final AtomicReference<CodexTransportException> closeCause = new AtomicReference<>();

    /** One call, across its attempts: an overloaded request is sent again under a new id. */
    private final class Call<R> {
        final String method;
        final Object params;
        final Class<R> resultType;
        final Duration timeout;
        /** Told the id of each attempt before it is sent; null when nobody asks. */
        final Consumer<RequestId> onAttempt;
        /** Where a result is handed over; null for where it is read. */
        final ResponseLane<? super R> lane;
        final long startedNanos = scheduler.nanoTime();
        /** The id of the attempt in flight. */
        volatile RequestId current;
        /** How many attempts were sent (or tried). */
        volatile int attempts;
        /** Tells the telemetry the call's end, once; null without a telemetry listener. */
        volatile BiConsumer<Object, Throwable> toldEnd;
        // A caller that cancels (or times out its own wait) must not leave the entry behind.
        final CallFuture<R> future = new CallFuture<>(callbacks, () -> {
            RequestId id = current;
            if (id != null) {
                pending.remove(id);
            }
        });

        Call(String method, Object params, Class<R> resultType, Duration timeout, Consumer<RequestId> onAttempt,
             ResponseLane<? super R> lane) {
            this.method = method;
            this.params = params;
            this.resultType = resultType;
            this.timeout = timeout;
            this.onAttempt = onAttempt;
            this.lane = lane;
        }
    }

    /** One attempt awaiting its response; {@code deadline} is on the scheduler's clock. */
    private record Pending(RequestId id, Call<?> call, int attempt, long deadline) {
    }

    /**
     * Timeouts are watched by one scheduled check at a time, due at the earliest deadline known when it was
     * scheduled. A task per request would cost a timer wake-up per call (each new task heads the timer's queue
     * when it is the only call in flight); with calls that share a timeout, a new deadline is later than the one
     * already watched and registering it costs one volatile read. The check that fires fails what has expired
     * and schedules itself again for the earliest deadline left.
     */
    private static final class DeadlineCheck {
        final long at;
        Scheduler.Task task;

        DeadlineCheck(long at) {
            this.at = at;
        }
    }

    private final UnaryOperator<CodexRpcException> refineError;
    /** Queues a task on a delivery lane, in wire order with the notifications of the same read (reader thread). */
    private final BiConsumer<String, Runnable> lanes;
    /** Where request events go; null without a telemetry listener, so that no event is built. */
    private final RequestTelemetry telemetry;

    private final Object deadlineLock = new Object();
    /** The check that will see every pending deadline (none is earlier than {@code at}), or null when none. */
    private volatile DeadlineCheck deadlineCheck;

    /**
     * @param callbacks where a call's outcome is published (its dependents run there)
     * @param jitter given a backoff bound in nanoseconds, a delay in {@code [0, bound]}; see {@link #fullJitter}
     * @param peer names the peer in error messages
     */
    RequestCorrelator(RpcSettings settings, Scheduler scheduler, WireCodec codec, Sender sender, Executor callbacks,
                      UnaryOperator<String> redactor, LongUnaryOperator jitter, String peer) {
        this(settings, scheduler, codec, sender, callbacks, redactor, jitter, peer, UnaryOperator.identity());
    }

    /**
     * @param refineError gives an error response a more specific type before it fails its call (e.g. a method the
     *                    server does not know); runs on the reader thread, so it must be quick and must not throw
     */
    RequestCorrelator(RpcSettings settings, Scheduler scheduler, WireCodec codec, Sender sender, Executor callbacks,
                      UnaryOperator<String> redactor, LongUnaryOperator jitter, String peer,
                      UnaryOperator<CodexRpcException> refineError) {
        this(settings, scheduler, codec, sender, callbacks, redactor, jitter, peer, refineError, TelemetryEmitter.none());
    }

    /** @param telemetry the client's telemetry emitter; a disabled one costs nothing per call */
    RequestCorrelator(RpcSettings settings, Scheduler scheduler, WireCodec codec, Sender sender, Executor callbacks,
                      UnaryOperator<String> redactor, LongUnaryOperator jitter, String peer,
                      UnaryOperator<CodexRpcException> refineError, TelemetryEmitter telemetry) {
        this(settings, scheduler, codec, sender, callbacks, redactor, jitter, peer, refineError, telemetry,
                (key, task) -> task.run());
    }

    /**
     * @param lanes queues a task on the delivery lane of a key, in wire order with the notifications read around it;
     *              called on the reader thread, for the results of calls made with a {@link ResponseLane}
     */
    RequestCorrelator(RpcSettings settings, Scheduler scheduler, WireCodec codec, Sender sender, Executor callbacks,
                      UnaryOperator<String> redactor, LongUnaryOperator jitter, String peer,
                      UnaryOperator<CodexRpcException> refineError, TelemetryEmitter telemetry,
                      BiConsumer<String, Runnable> lanes) {
        this.lanes = lanes;
        this.telemetry = telemetry.enabled() ? new RequestTelemetry(telemetry, scheduler) : null;
        this.settings = settings;
        this.scheduler = scheduler;
        this.codec = codec;
        this.sender = sender;
        this.callbacks = callbacks;
        this.redactor = redactor;
        this.jitter = jitter;
        this.peer = peer;
        this.refineError = refineError;
    }

    /** Full jitter: a delay uniform in {@code [0, bound]}. */
    static long fullJitter(long bound) {
        return bound <= 0 ? 0 : ThreadLocalRandom.current().nextLong(bound + 1);
    }

    /**
     * Sends a request and decodes its result into {@code resultType}; retries {@code -32001} per the settings.
     *
     * @param params the params object, or {@code null} to omit the member
     * @param timeout the per-attempt timeout, or {@code null} for the default
     */
    <R> CallFuture<R> call(String method, Object params, Class<R> resultType, Duration timeout) {
        return call(method, params, resultType, timeout, null);
    }

    /**
     * {@link #call(String, Object, Class, Duration)} that tells {@code onAttempt} the id of each attempt before the
     * attempt is sent: notifications that belong to a request (a streamed search's partial rows) carry its id.
     *
     * @param onAttempt takes each attempt's id, on the sending thread; null when nobody asks
     */
    <R> CallFuture<R> call(String method, Object params, Class<R> resultType, Duration timeout,
                           Consumer<RequestId> onAttempt) {
        return call(method, params, resultType, timeout, onAttempt, null);
    }

    /**
     * {@link #call(String, Object, Class, Duration, Consumer)} whose result is handed over on {@code lane}: on the
     * reader thread the result is queued on that lane, in wire order, where {@code lane.first()} runs with it and the
     * future then completes.
     *
     * @param lane where the result is handed over; null for where it is read
     */
    <R> CallFuture<R> call(String method, Object params, Class<R> resultType, Duration timeout,
                           Consumer<RequestId> onAttempt, ResponseLane<? super R> lane) {
        Call<R> call = new Call<>(method, params, resultType, timeout == null ? settings.requestTimeout() : timeout,
                onAttempt, lane);
        attempt(call, 1);
        return call.future;
    }

    private void attempt(Call<?> call, int attempt) {
        if (call.future.isDone()) {
            return;
        }
        String method = call.method;
        if (isClosed()) {
            finish(call, null, closedException("cannot send " + method));
            return;
        }
        RequestId id = RequestId.of(nextId.getAndIncrement());
        call.current = id;
        if (call.onAttempt != null) {
            call.onAttempt.accept(id);
        }
        call.attempts = attempt;
        if (attempt == 1 && telemetry != null) {
            // Before the request can leave, so its end event (queued wherever the answer is read) comes after.
            call.toldEnd = telemetry.started(method, id.toString(), call.startedNanos, call.future,
                    () -> call.attempts);
        }
        byte[] bytes;
        try {
            bytes = codec.encodeRequest(id, method, call.params);
        } catch (IOException | RuntimeException e) {
            finish(call, null, new CodexException("could not serialise the params of " + method, e));
            return;
        }
        long deadline = scheduler.nanoTime() + Scheduler.saturatedNanos(call.timeout);
        Pending p = new Pending(id, call, attempt, deadline);
        pending.put(id, p);
        // fail() may have swept the table between the check above and the put: sweep this entry ourselves.
        if (isClosed()) {
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
            sender.send(bytes);
        } catch (RuntimeException e) {
            failPending(id, e instanceof CodexException ce ? ce
                    : new CodexTransportException("could not send " + method + " to " + peer, e));
        }
    }

    /**
     * Ends a call. Threads blocked on its future wake now, on this thread (possibly the reader: they run no user
     * code); the future's dependents run on the callback executor (see {@link CallFuture}).
     */
    private <R> void finish(Call<R> call, R value, Throwable error) {
        CallFuture<R> future = call.future;
        if (!future.settle(value, error) || !future.claimPublication()) {
            return;
        }
        try {
            callbacks.execute(future::publishOnCallbackThread);
        } catch (RejectedExecutionException e) {
            future.publish();
        }
    }

    /** Full jitter below {@code min(max, initial * 2^(attempt-1))}. */
    private long backoffNanos(int attempt) {
        long initial = settings.retryInitialBackoff().toNanos();
        long cap = settings.retryMaxBackoff().toNanos();
        long bound = attempt >= 31 ? cap : Math.min(cap, initial << (attempt - 1));
        return Math.max(0, Math.min(bound, jitter.applyAsLong(Math.max(0, bound))));
    }

    /**
     * Makes sure a check runs no later than {@code deadline}. Called after the request is in {@link #pending}:
     * a firing check unregisters itself (under the lock) before it scans, so a request either was registered while
     * that check was still the watched one, and is then in the map before the scan starts and is seen by it, or
     * finds no check (or only the one that scan scheduled) and schedules its own when it is earlier.
     *
     * @throws RejectedExecutionException when the scheduler was shut down
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
            check.task = scheduler.schedule(() -> checkDeadlines(check), deadline - scheduler.nanoTime());
            deadlineCheck = check;
            if (current != null) {
                current.task.cancel();
            }
        }
    }

    /** Runs on the scheduler: fails every request whose deadline has passed, then watches the earliest one left. */
    private void checkDeadlines(DeadlineCheck self) {
        synchronized (deadlineLock) {
            // From here on a new request schedules its own check, unless one earlier than its deadline exists.
            if (deadlineCheck == self) {
                deadlineCheck = null;
            }
        }
        long now = scheduler.nanoTime();
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
                // the connection is ending: fail() fails whatever is still pending
            }
        }
    }

    private void failPending(RequestId id, Throwable error) {
        Pending p = pending.remove(id);
        if (p != null) {
            finish(p.call(), null, error);
        }
    }

    // ------------------------------------------------------------------------------------------------ responses

    @Override
    public Class<?> resultTypeOf(RequestId id) {
        Pending p = pending.get(id);
        return p == null ? null : p.call().resultType;
    }

    /**
     * A result the codec bound into the type {@link #resultTypeOf} gave for its id.
     *
     * @return false when no attempt is pending under the id (timed out, cancelled, or never sent)
     */
    boolean onResult(RequestId id, Object value) {
        Pending p = pending.remove(id);
        if (p != null) {
            succeed(p.call(), value);
        }
        return p != null;
    }

    /**
     * A result that does not decode into what its call expects.
     *
     * @return false when no attempt is pending under the id
     */
    boolean onUndecodableResult(RequestId id, String resultText, Throwable cause) {
        Pending p = pending.remove(id);
        if (p == null) {
            return false;
        }
        Call<?> call = p.call();
        finish(call, null, new CodexProtocolException("the result of " + call.method + " does not decode into "
                + call.resultType.getSimpleName() + ": " + redactor.apply(WireLog.truncate(resultText)), cause));
        return true;
    }

    /**
     * An error response: a {@code -32001} overload is retried after a backoff, anything else ends the call.
     *
     * @return false when no attempt is pending under the id
     */
    boolean onError(RequestId id, JsonNode error) {
        Pending p = pending.remove(id);
        if (p != null) {
            failAttempt(p, error);
        }
        return p != null;
    }

    private <R> void succeed(Call<R> call, Object value) {
        R typed;
        try {
            typed = call.resultType.cast(value);
        } catch (ClassCastException e) {
            finish(call, null, new CodexProtocolException("the result of " + call.method + " was decoded as "
                    + value.getClass().getSimpleName() + ", not " + call.resultType.getSimpleName(), e));
            return;
        }
        ResponseLane<? super R> lane = call.lane;
        if (lane == null) {
            finish(call, typed, null);
            return;
        }
        // The response's place in the wire order is its lane's: what it changes is changed there, before anyone
        // waiting for the future wakes.
        lanes.accept(lane.key(), () -> {
            // The request ended where its result is taken: before what the lane does with it (a turn it names
            // starts after the request that started it ended).
            BiConsumer<Object, Throwable> told = call.toldEnd;
            if (told != null) {
                told.accept(typed, null);
            }
            try {
                lane.first().accept(typed);
            } catch (RuntimeException e) {
                Log.LOG.error("Handing over the result of {} failed", call.method, e);
            }
            finish(call, typed, null);
        });
    }

    private void failAttempt(Pending p, JsonNode error) {
        int code = error.path("code").asInt(CodexRpcException.INTERNAL_ERROR);
        // A server may echo what it was sent (an API key it rejects): mask known secrets before the text
        // travels on in an exception that ends up in logs.
        String text = redactor.apply(error.path("message").asText(""));
        JsonNode data = error.get("data");
        failAttempt(p, refineError.apply(new CodexRpcException(p.call().method, code, text,
                data == null || data.isNull() ? null : RedactedJson.copy(data, redactor))));
    }

    private void failAttempt(Pending p, CodexRpcException rpc) {
        Call<?> call = p.call();
        if (rpc.code() != CodexRpcException.SERVER_OVERLOADED) {
            finish(call, null, rpc);
            return;
        }
        int attempt = p.attempt();
        long elapsed = scheduler.nanoTime() - call.startedNanos;
        long delay = backoffNanos(attempt);
        if (attempt < settings.retryMaxAttempts() && !isClosed()
                && elapsed + delay < settings.retryMaxTotal().toNanos()) {
            Log.LOG.debug("{} overloaded (attempt {}), retrying in {} ms", call.method, attempt, delay / 1_000_000);
            backingOff.add(call);
            try {
                scheduler.schedule(() -> {
                    if (backingOff.remove(call)) {
                        attempt(call, attempt + 1);
                    }
                }, delay);
                // fail() may have run before the add: then nothing else will end this call.
                if (isClosed() && backingOff.remove(call)) {
                    finish(call, null, closedException("cannot send " + call.method));
                }
                return;
            } catch (RejectedExecutionException closing) {
                backingOff.remove(call);
                // fall through: the connection is closing, report the overload as it stands
            }
        }
        finish(call, null, new CodexOverloadedException(call.method, rpc.serverMessage(), rpc.data().orElse(null),
                attempt));
    }

    // ------------------------------------------------------------------------------------------------ closing

    /** Whether the connection ended. */
    boolean isClosed() {
        return closeCause.get() != null;
    }

    /**
     * The connection ended: fails every pending call with {@code cause}, and every later call at once. Returns
     * false when it had already ended.
     */
    boolean fail(CodexTransportException cause) {
        if (!closeCause.compareAndSet(null, cause)) {
            return false;
        }
        List<Pending> failed = new ArrayList<>(pending.values());
        pending.clear();
        for (Pending p : failed) {
            finish(p.call(), null, cause);
        }
        for (Call<?> call : new ArrayList<>(backingOff)) {
            if (backingOff.remove(call)) {
                finish(call, null, cause);
            }
        }
        return true;
    }

    /** The failure of a call made after the connection ended: names why it ended. */
    CodexTransportException closedException(String what) {
        CodexTransportException cause = closeCause.get();
        if (cause != null) {
            return new CodexTransportException(what + ": " + cause.getMessage(), cause.exitCode(), "", cause);
        }
        return new CodexTransportException(what + ": the connection is closed");
    }

    /** How many attempts await a response. */
    int pendingCount() {
        return pending.size();
    }
}
