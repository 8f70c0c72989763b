package dev.codexclient.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.testkit.internal.fake.Connection;
import dev.codexclient.testkit.internal.fake.Json;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;

/**
 * The fake's scripted turns: which script the next {@code turn/start} plays (a queued one-off, else the default),
 * the turns playing now, and {@code turn/interrupt} and {@code turn/steer} on them.
 */
final class TurnPlayer {
    private final FakeContext fake;
    private final Deque<BiConsumer<RecordedRequest, TurnScript>> queued = new ArrayDeque<>();
    private final Map<String, TurnContext> active = new ConcurrentHashMap<>();
    private volatile BiConsumer<RecordedRequest, TurnScript> script =
            (request, turn) -> turn.agentMessage("Done.").completed();
    private volatile boolean neverCompleteNext;

    TurnPlayer(FakeContext fake) {
        this.fake = fake;
    }

    void defaultScript(BiConsumer<RecordedRequest, TurnScript> script) {
        this.script = Objects.requireNonNull(script, "script");
    }

    void enqueue(BiConsumer<RecordedRequest, TurnScript> script) {
        Objects.requireNonNull(script, "script");
        synchronized (queued) {
            queued.add(script);
        }
    }

    /** The next turn never completes ({@link Fault#neverCompleteTurn()}). */
    void neverCompleteNext() {
        neverCompleteNext = true;
    }

    /** Answers {@code turn/start} and plays the turn on a thread of its own. */
    void start(Connection connection, RecordedRequest request) {
        JsonNode params = request.params();
        String threadId = params.path("threadId").asText("");
        Optional<String> cwd = fake.store.cwd(threadId);
        if (cwd.isEmpty()) {
            RequestAnswerer.respond(connection, request, Reply.error(-32600, "thread not found: " + threadId));
            return;
        }
        BiConsumer<RecordedRequest, TurnScript> configure;
        synchronized (queued) {
            configure = queued.isEmpty() ? script : queued.poll();
        }
        TurnScript turnScript = new TurnScript();
        try {
            configure.accept(request, turnScript);
        } catch (RuntimeException e) {
            fake.recordFailure(e);
            RequestAnswerer.respond(connection, request, Reply.error(-32603, "fake: turn script failed: " + e));
            return;
        }
        if (neverCompleteNext) {
            neverCompleteNext = false;
            turnScript.neverComplete();
        }
        String turnId = fake.nextId("turn");
        TurnContext turn = new TurnContext(fake, connection, threadId, turnId, cwd.get(), params.path("input"));
        active.put(turnId, turn);
        RequestAnswerer.respond(connection, request,
                Reply.result(Json.object().set("turn", turn.turnNode("inProgress", null, false))));
        try {
            fake.workers.execute(() -> {
                try {
                    turn.play(turnScript);
                } catch (TurnContext.Stop ignored) {
                    // closed while playing
                } finally {
                    active.remove(turnId);
                }
            });
        } catch (RejectedExecutionException e) {
            active.remove(turnId);
        }
    }

    /** Answers {@code turn/interrupt}; the turn it names ends as interrupted after its current step. */
    void interrupt(Connection connection, RecordedRequest request) {
        RequestAnswerer.respond(connection, request, Reply.result(Json.object()));
        TurnContext turn = active.get(request.params().path("turnId").asText(""));
        if (turn != null) {
            turn.interruptRequested = true;
        }
    }

    /** Answers {@code turn/steer}: accepted for the turn playing now, an error for any other. */
    void steer(Connection connection, RecordedRequest request) {
        String expected = request.params().path("expectedTurnId").asText("");
        if (active.containsKey(expected)) {
            RequestAnswerer.respond(connection, request, Reply.result(Json.object().put("turnId", expected)));
        } else {
            RequestAnswerer.respond(connection, request,
                    Reply.error(-32600, "no active turn " + expected + " to steer"));
        }
    }
}
