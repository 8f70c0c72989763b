package dev.codexclient.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.testkit.internal.fake.Connection;
import dev.codexclient.testkit.internal.fake.Json;
import dev.codexclient.testkit.internal.fake.ThreadStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers client requests as scripted: the handshake rules of codex first, then the first matching
 * {@link Stubbing} rule (answered now or after its delay), else the built-in answer over the fake's
 * {@link ThreadStore} and {@link TurnPlayer}.
 */
final class RequestAnswerer {
    private static final Logger LOG = LoggerFactory.getLogger(RequestAnswerer.class);
    private static final String ENQUEUED = "enqueued ";

    private final FakeContext fake;
    private final TurnPlayer turns;
    private final FaultInjector faults;
    /** Tried in order; guarded by itself. */
    private final List<Stubbing> rules = new ArrayList<>();
    private volatile JsonNode initializeResult = defaultInitializeResult();

    RequestAnswerer(FakeContext fake, TurnPlayer turns, FaultInjector faults) {
        this.fake = fake;
        this.turns = turns;
        this.faults = faults;
    }

    void initializeResult(JsonNode result) {
        this.initializeResult = result;
    }

    // ---------------------------------------------------------------- rules

    void add(Stubbing rule) {
        synchronized (rules) {
            rules.add(rule);
        }
    }

    /** Adds a rule tried before every other ({@link Fault#overloaded}). */
    void addFirst(Stubbing rule) {
        synchronized (rules) {
            rules.add(0, rule);
        }
    }

    /** Adds a one-off rule after the enqueued ones and before every other: enqueued faults are used in order. */
    void enqueue(Stubbing rule) {
        synchronized (rules) {
            int position = 0;
            while (position < rules.size() && rules.get(position).description.startsWith(ENQUEUED)) {
                position++;
            }
            rules.add(position, rule);
        }
    }

    static String enqueuedDescription(Fault fault) {
        return ENQUEUED + fault;
    }

    // ---------------------------------------------------------------- answering

    /** Answers {@code request} on {@code connection} (unless the fake is stalled: then it is left unanswered). */
    void answer(Connection connection, RecordedRequest request) {
        if (fake.isStalled()) {
            return;
        }
        boolean isInitialize = request.method().equals("initialize");
        if (!isInitialize && !connection.isInitialized()) {
            respond(connection, request, Reply.error(-32600, "Not initialized"));
            return;
        }
        if (isInitialize && connection.isInitialized()) {
            respond(connection, request, Reply.error(-32600, "Already initialized"));
            return;
        }
        Stubbing rule = matchingRule(request);
        if (rule == null) {
            builtIn(connection, request);
            return;
        }
        Object outcome;
        try {
            outcome = rule.action.apply(request);
        } catch (Throwable t) {
            fake.recordFailure(t);
            outcome = Reply.error(-32603, "fake: scripted answer failed: " + t);
        }
        Object result = outcome;
        if (rule.delay.isZero()) {
            deliver(connection, request, result);
            return;
        }
        try {
            // Back on the dispatcher, so the delayed answer keeps its place among the fake's other work.
            fake.scheduler.schedule(() -> fake.dispatch(() -> deliver(connection, request, result)),
                    rule.delay.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            LOG.debug("fake closed before a delayed answer");
        }
    }

    private Stubbing matchingRule(RecordedRequest request) {
        synchronized (rules) {
            for (Stubbing candidate : rules) {
                if (candidate.remaining != 0 && matches(candidate, request)) {
                    if (candidate.remaining > 0) {
                        candidate.remaining--;
                    }
                    return candidate;
                }
            }
        }
        return null;
    }

    private boolean matches(Stubbing rule, RecordedRequest request) {
        try {
            return rule.matcher.test(request);
        } catch (RuntimeException e) {
            fake.recordFailure(e);
            return false;
        }
    }

    private void deliver(Connection connection, RecordedRequest request, Object outcome) {
        if (outcome == Stubbing.Special.DEFAULT) {
            builtIn(connection, request);
        } else if (outcome == Stubbing.Special.NO_REPLY) {
            LOG.debug("not answering {} as scripted", request);
        } else if (outcome instanceof Fault fault) {
            faults.applyOn(connection, fault);
        } else if (outcome instanceof Reply reply) {
            respond(connection, request, reply);
        } else {
            respond(connection, request, Reply.result(outcome));
        }
    }

    static void respond(Connection connection, RecordedRequest request, Reply reply) {
        if (reply instanceof Reply.Result r) {
            connection.respond(request.id(), r.value().deepCopy(), request.method().equals("initialize"));
        } else {
            Reply.Error e = (Reply.Error) reply;
            JsonNode data = e.data().isPresent() ? e.data().get().deepCopy() : null;
            connection.respondError(request.id(), e.code(), e.message(), data);
        }
    }

    // ---------------------------------------------------------------- built-in answers

    private void builtIn(Connection connection, RecordedRequest request) {
        JsonNode params = request.params();
        ThreadStore store = fake.store;
        switch (request.method()) {
            case "initialize" -> respond(connection, request, new Reply.Result(initializeResult.deepCopy()));
            case "thread/start" -> started(connection, request, store.start(params));
            case "thread/resume" -> respond(connection, request, Reply.result(store.resume(params)));
            case "thread/fork" -> started(connection, request, store.fork(params));
            case "thread/list" -> {
                try {
                    respond(connection, request, Reply.result(store.list(params)));
                } catch (ThreadStore.InvalidCursorException e) {
                    respond(connection, request, Reply.error(-32600, e.getMessage()));
                }
            }
            case "thread/archive" -> found(connection, request, store.setArchived(threadId(request), true),
                    thread -> respond(connection, request, Reply.result(Json.object())));
            case "thread/unarchive" -> found(connection, request, store.setArchived(threadId(request), false),
                    thread -> respond(connection, request, Reply.result(Json.object().set("thread", thread))));
            case "thread/turns/list" -> {
                try {
                    found(connection, request, store.turns(threadId(request), params),
                            page -> respond(connection, request, Reply.result(page)));
                } catch (ThreadStore.InvalidCursorException e) {
                    respond(connection, request, Reply.error(-32600, e.getMessage()));
                }
            }
            case "thread/read" -> found(connection, request,
                    store.read(threadId(request), params.path("includeTurns").asBoolean(false)),
                    thread -> respond(connection, request, Reply.result(Json.object().set("thread", thread))));
            case "thread/name/set" -> {
                String name = params.path("name").asText("");
                if (store.setName(threadId(request), name)) {
                    respond(connection, request, Reply.result(Json.object()));
                    connection.notify("thread/name/updated", Json.object().put("threadId", threadId(request))
                            .put("threadName", name));
                } else {
                    threadNotFound(connection, request);
                }
            }
            case "thread/compact/start" -> found(connection, request, store.cwd(threadId(request)),
                    cwd -> respond(connection, request, Reply.result(Json.object())));
            case "thread/unsubscribe" -> respond(connection, request, Reply.result(Json.object().put("status",
                    store.contains(threadId(request)) ? "unsubscribed" : "notLoaded")));
            case "turn/start" -> turns.start(connection, request);
            case "turn/interrupt" -> turns.interrupt(connection, request);
            case "turn/steer" -> turns.steer(connection, request);
            case "thread/search" -> respond(connection, request, Reply.result(fake.searches.page(params)));
            case "thread/search/stream" -> fake.searches.stream(connection, request.id(), params);
            case "thread/search/stream/cancel", "thread/search/cancel" ->
                    fake.searches.cancel(connection, request.id(), params);
            // As codex 0.171.0 answers it: the config file it wrote.
            case "modelProvider/default/set" -> respond(connection, request, Reply.result(Json.object()
                    .put("status", "ok").put("version", "fake-" + params.path("providerId").asText())
                    .put("filePath", initializeResult.path("codexHome").asText("/tmp") + "/config.toml")
                    .putNull("overriddenMetadata")));
            default -> respond(connection, request, Reply.error(-32601, "Method not found: " + request.method()));
        }
    }

    /** Answers a request that created a thread, then announces it with {@code thread/started} as codex does. */
    private static void started(Connection connection, RecordedRequest request, ObjectNode result) {
        ObjectNode started = Json.object();
        started.set("thread", result.get("thread").deepCopy());
        respond(connection, request, Reply.result(result));
        connection.notify("thread/started", started);
    }

    private static <T> void found(Connection connection, RecordedRequest request, Optional<T> thread,
                                  Consumer<T> action) {
        thread.ifPresentOrElse(action, () -> threadNotFound(connection, request));
    }

    private static void threadNotFound(Connection connection, RecordedRequest request) {
        respond(connection, request, Reply.error(-32600, "thread not found: " + threadId(request)));
    }

    private static String threadId(RecordedRequest request) {
        return request.params().path("threadId").asText("");
    }

    private static JsonNode defaultInitializeResult() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String platformOs = os.contains("mac") ? "macos" : os.contains("win") ? "windows" : "linux";
        String family = platformOs.equals("windows") ? "windows" : "unix";
        String home = Path.of(System.getProperty("java.io.tmpdir"), "codex-fake-home").toAbsolutePath().toString();
        Map<String, Object> result = new LinkedHashMap<>();
        // The pinned version: the client takes the server for that codex when it checks which methods it has.
        result.put("userAgent", "codex_fake/" + CodexBinary.PINNED_VERSION + " (" + platformOs + "; "
                + System.getProperty("os.arch") + ") codex-client-testkit");
        result.put("codexHome", home);
        result.put("platformFamily", family);
        result.put("platformOs", platformOs);
        return Json.tree(result);
    }
}
