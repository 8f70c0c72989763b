package dev.codexclient.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.testkit.internal.fake.Connection;
import dev.codexclient.testkit.internal.fake.Json;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One playing turn: the state a {@link TurnScript} step works on, and the loop that plays the script. */
final class TurnContext {
    private static final Logger LOG = LoggerFactory.getLogger(TurnContext.class);
    private static final long POLL_MS = 10;

    /** Thrown inside a step to stop the turn (interrupt, disconnect, close). */
    static final class Stop extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Stop() {
            super(null, null, false, false);
        }
    }

    private final FakeContext fake;
    private final Connection connection;
    private final String threadId;
    private final String turnId;
    private final String cwd;
    private final JsonNode input;
    private final List<JsonNode> items = new ArrayList<>();
    private final long startedAtSeconds = Instant.now().getEpochSecond();
    private final long startedNanos = System.nanoTime();
    volatile boolean interruptRequested;

    TurnContext(FakeContext fake, Connection connection, String threadId, String turnId, String cwd,
                JsonNode input) {
        this.fake = fake;
        this.connection = connection;
        this.threadId = threadId;
        this.turnId = turnId;
        this.cwd = cwd;
        this.input = input;
    }

    String threadId() {
        return threadId;
    }

    String turnId() {
        return turnId;
    }

    String cwd() {
        return cwd;
    }

    /** A fresh params object holding this turn's thread and turn ids. */
    ObjectNode ids() {
        return Json.object().put("threadId", threadId).put("turnId", turnId);
    }

    String nextItemId(String prefix) {
        return fake.nextId(prefix);
    }

    /** The turn object as {@code turn/start}, {@code turn/started} and {@code turn/completed} carry it. */
    ObjectNode turnNode(String status, JsonNode error, boolean withItems) {
        ObjectNode turn = Json.object().put("id", turnId);
        ArrayNode array = turn.putArray("items");
        if (withItems) {
            synchronized (items) {
                items.forEach(i -> array.add(i.deepCopy()));
            }
        }
        turn.put("status", status);
        turn.set("error", error == null ? Json.tree(null) : error);
        turn.put("startedAt", startedAtSeconds);
        if (status.equals("inProgress")) {
            turn.putNull("completedAt");
            turn.putNull("durationMs");
        } else {
            turn.put("completedAt", Instant.now().getEpochSecond());
            turn.put("durationMs", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos));
        }
        return turn;
    }

    void emit(String method, JsonNode params) {
        checkInterrupted();
        fake.awaitNotStalled(this::stopped);
        if (stopped()) {
            throw new Stop();
        }
        connection.notify(method, params);
    }

    /** Emits without checking for an interrupt; used for the closing messages of an interrupted turn. */
    private void emitFinal(String method, JsonNode params) {
        fake.awaitNotStalled(() -> fake.isClosed() || connection.isClosed());
        if (!fake.isClosed() && !connection.isClosed()) {
            connection.notify(method, params);
        }
    }

    void itemStarted(ObjectNode item) {
        ObjectNode params = ids();
        params.set("item", item);
        params.put("startedAtMs", System.currentTimeMillis());
        emit("item/started", params);
    }

    void itemCompleted(ObjectNode item) {
        synchronized (items) {
            items.add(item.deepCopy());
        }
        ObjectNode params = ids();
        params.set("item", item);
        params.put("completedAtMs", System.currentTimeMillis());
        emit("item/completed", params);
    }

    void tokenUsage(long input, long cached, long output, long reasoning) {
        ObjectNode last = breakdown(input, cached, output, reasoning);
        long[] total = fake.store.addTokenUsage(threadId, input, cached, output, reasoning);
        ObjectNode usage = Json.object();
        usage.set("total", breakdown(total[0], total[1], total[2], total[3]));
        usage.set("last", last);
        usage.put("modelContextWindow", 272_000);
        ObjectNode params = ids();
        params.set("tokenUsage", usage);
        emit("thread/tokenUsage/updated", params);
    }

    private static ObjectNode breakdown(long input, long cached, long output, long reasoning) {
        return Json.object().put("totalTokens", input + output).put("inputTokens", input)
                .put("cachedInputTokens", cached).put("outputTokens", output)
                .put("reasoningOutputTokens", reasoning);
    }

    boolean stopped() {
        return interruptRequested || connection.isClosed() || fake.isClosed();
    }

    void checkInterrupted() {
        if (stopped()) {
            throw new Stop();
        }
    }

    /** Ends the turn as interrupted after the current step (a {@code cancel} decision). */
    void interruptSelf() {
        interruptRequested = true;
    }

    void sleep(Duration duration) {
        long deadline = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() < deadline) {
            checkInterrupted();
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            sleepQuietly(Math.max(1, Math.min(POLL_MS, left)));
        }
        checkInterrupted();
    }

    /**
     * Sends a server request and waits for the reply (bounded by the fake's server-request timeout). Settles it
     * with {@code serverRequest/resolved} and hands the reply to {@code onReply}, whose failures are kept for the
     * test. An unanswered request yields empty (and a recorded failure).
     */
    Optional<ClientReply> request(String method, ObjectNode params, Consumer<ClientReply> onReply) {
        checkInterrupted();
        fake.awaitNotStalled(this::stopped);
        boolean approval = method.endsWith("requestApproval");
        if (approval) {
            setStatus(true);
        }
        PendingServerRequest pending = fake.sendRequest(connection, method, params);
        long deadline = System.nanoTime() + fake.serverRequestTimeout().toNanos();
        ClientReply reply = null;
        try {
            while (reply == null) {
                try {
                    reply = pending.reply.get(POLL_MS, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    if (stopped()) {
                        emitFinal("serverRequest/resolved", resolved(pending));
                        throw new Stop();
                    }
                    if (System.nanoTime() > deadline) {
                        fake.recordFailure(new AssertionError("the client did not answer " + method + " (id "
                                + pending.id() + ") within " + fake.serverRequestTimeout()));
                        connection.forget(pending.id());
                        emitFinal("serverRequest/resolved", resolved(pending));
                        return Optional.empty();
                    }
                } catch (ExecutionException e) {
                    throw new Stop();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new Stop();
                }
            }
        } finally {
            if (approval) {
                setStatusQuietly();
            }
        }
        emit("serverRequest/resolved", resolved(pending));
        try {
            onReply.accept(reply);
        } catch (Throwable t) {
            fake.recordFailure(t);
        }
        return Optional.of(reply);
    }

    private ObjectNode resolved(PendingServerRequest pending) {
        ObjectNode params = Json.object().put("threadId", threadId);
        params.set("requestId", Json.tree(pending.id()));
        return params;
    }

    private void setStatus(boolean waitingOnApproval) {
        ObjectNode params = Json.object().put("threadId", threadId);
        ObjectNode status = params.putObject("status").put("type", "active");
        ArrayNode flags = status.putArray("activeFlags");
        if (waitingOnApproval) {
            flags.add("waitingOnApproval");
        }
        emit("thread/status/changed", params);
    }

    private void setStatusQuietly() {
        if (!stopped()) {
            try {
                setStatus(false);
            } catch (Stop ignored) {
                // the turn is ending anyway
            }
        }
    }

    /** Plays the script: turn/started, the steps, then the ending. Runs on the turn's own thread. */
    void play(TurnScript script) {
        String status = "completed";
        JsonNode error = null;
        try {
            setStatus(false);
            ObjectNode started = Json.object().put("threadId", threadId);
            started.set("turn", turnNode("inProgress", null, false));
            emit("turn/started", started);
            userMessage();
            for (TurnScript.Step step : script.steps) {
                checkInterrupted();
                step.run(this);
            }
            checkInterrupted();
            switch (script.ending) {
                case COMPLETED -> status = "completed";
                case INTERRUPTED -> status = "interrupted";
                case FAILED -> {
                    status = "failed";
                    error = script.error;
                    ObjectNode e = ids();
                    e.set("error", script.error.deepCopy());
                    e.put("willRetry", false);
                    emit("error", e);
                }
                case NEVER -> {
                    hangUntilClosed();
                    return;
                }
            }
        } catch (Stop | InterruptedException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            if (fake.isClosed() || connection.isClosed()) {
                return;
            }
            if (script.ending == TurnScript.Ending.NEVER) {
                hangUntilClosed();
                return;
            }
            status = "interrupted";
        } catch (RuntimeException e) {
            fake.recordFailure(e);
            status = "failed";
            error = Json.object().put("message", "fake turn script failed: " + e);
        }
        ObjectNode completed = Json.object().put("threadId", threadId);
        ObjectNode ended = turnNode(status, error, true);
        fake.store.turnEnded(threadId, ended, userText());
        completed.set("turn", ended);
        emitFinal("turn/completed", completed);
        ObjectNode idle = Json.object().put("threadId", threadId);
        idle.putObject("status").put("type", "idle");
        emitFinal("thread/status/changed", idle);
        LOG.debug("turn {} of thread {} ended: {}", turnId, threadId, status);
    }

    private void userMessage() {
        ObjectNode item = Json.object().put("type", "userMessage").put("id", nextItemId("user"));
        item.set("content", input.isArray() ? input.deepCopy() : Json.object().arrayNode());
        item.putNull("clientId");
        itemStarted(item.deepCopy());
        itemCompleted(item);
    }

    /** The text of the turn's input, for the thread's preview. */
    private String userText() {
        StringBuilder text = new StringBuilder();
        for (JsonNode part : input) {
            if ("text".equals(part.path("type").asText())) {
                text.append(text.length() == 0 ? "" : " ").append(part.path("text").asText());
            }
        }
        return text.toString();
    }

    private void hangUntilClosed() {
        while (!fake.isClosed() && !connection.isClosed()) {
            sleepQuietly(50);
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Stop();
        }
    }
}
