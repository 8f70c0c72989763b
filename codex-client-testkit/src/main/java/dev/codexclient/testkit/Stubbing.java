package dev.codexclient.testkit;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * How the fake answers requests that match a method or a predicate. Rules are tried in the order they were
 * added; the first one that matches and is not used up answers. A rule is unlimited unless {@link #once()} or
 * {@link #times(int)} says otherwise. Requests no rule matches get the fake's built-in answer.
 * <pre>{@code
 * fake.on("thread/start").once().respondError(-32001, "Server overloaded; retry later.");
 * fake.on("model/list").respond(Map.of("data", List.of()));
 * fake.on("turn/start").delay(Duration.ofMillis(200)).respondDefault();
 * }</pre>
 */
public final class Stubbing {
    private final FakeCodexAppServer server;
    final Predicate<RecordedRequest> matcher;
    final String description;
    int remaining = -1;
    Duration delay = Duration.ZERO;
    Function<RecordedRequest, Object> action;

    /** Marker answers that are not a {@link Reply}. */
    enum Special { DEFAULT, NO_REPLY }

    Stubbing(FakeCodexAppServer server, Predicate<RecordedRequest> matcher, String description) {
        this.server = server;
        this.matcher = matcher;
        this.description = description;
    }

    /**
     * Applies this rule to one request only.
     *
     * @return this rule, for chaining
     */
    public Stubbing once() {
        return times(1);
    }

    /**
     * Applies this rule to the next {@code n} matching requests.
     *
     * @param n how many matching requests (at least 1)
     * @return this rule, for chaining
     */
    public Stubbing times(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("times must be positive");
        }
        this.remaining = n;
        return this;
    }

    /**
     * Applies this rule to every matching request (the default).
     *
     * @return this rule, for chaining
     */
    public Stubbing always() {
        this.remaining = -1;
        return this;
    }

    /**
     * Sends the answer after {@code delay} (without holding up other requests).
     *
     * @param delay how long to wait before answering
     * @return this rule, for chaining
     */
    public Stubbing delay(Duration delay) {
        this.delay = Objects.requireNonNull(delay, "delay");
        return this;
    }

    /**
     * Answers with {@code result}: any Jackson-serialisable value (a protocol record, a map, a JsonNode).
     *
     * @param result the result: any Jackson-serialisable value (a protocol record, a map, a JsonNode)
     * @return the fake, to add further rules
     */
    public FakeCodexAppServer respond(Object result) {
        Reply reply = Reply.result(result);
        return install(req -> reply);
    }

    /**
     * Answers with a JSON-RPC error.
     *
     * @param code the JSON-RPC error code, e.g. -32600
     * @param message the error message
     * @return the fake, to add further rules
     */
    public FakeCodexAppServer respondError(int code, String message) {
        Reply reply = Reply.error(code, message);
        return install(req -> reply);
    }

    /**
     * Answers with a JSON-RPC error carrying {@code data}.
     *
     * @param code the JSON-RPC error code, e.g. -32600
     * @param message the error message
     * @param data the error's data: any Jackson-serialisable value
     * @return the fake, to add further rules
     */
    public FakeCodexAppServer respondError(int code, String message, Object data) {
        Reply reply = Reply.error(code, message, data);
        return install(req -> reply);
    }

    /**
     * Computes the answer per request. Return a {@link Reply} for full control, or any other value to use as the
     * result. The function runs on the fake's dispatcher thread and must not block waiting for the client.
     * If it throws, the client gets -32603 and the exception is kept in {@link FakeCodexAppServer#failures()}.
     *
     * @param answer computes the answer from the request: a {@link Reply}, or any other value to use as the result
     * @return the fake, to add further rules
     */
    public FakeCodexAppServer respondWith(Function<RecordedRequest, ?> answer) {
        Objects.requireNonNull(answer, "answer");
        return install(answer::apply);
    }

    /**
     * Answers as the fake would without this rule (useful with {@link #delay(Duration)} or {@link #once()}).
     *
     * @return the fake, to add further rules
     */
    public FakeCodexAppServer respondDefault() {
        return install(req -> Special.DEFAULT);
    }

    /**
     * Records the request and never answers it.
     *
     * @return the fake, to add further rules
     */
    public FakeCodexAppServer noReply() {
        return install(req -> Special.NO_REPLY);
    }

    /**
     * Instead of answering, applies {@code fault} (for example {@link Fault#exit(int)} on {@code turn/start}).
     *
     * @param fault the fault to apply
     * @return the fake, to add further rules
     */
    public FakeCodexAppServer fault(Fault fault) {
        Objects.requireNonNull(fault, "fault");
        return install(req -> fault);
    }

    private FakeCodexAppServer install(Function<RecordedRequest, Object> action) {
        if (this.action != null) {
            throw new IllegalStateException("this rule already has an answer");
        }
        this.action = action;
        server.addRule(this);
        return server;
    }

    @Override
    public String toString() {
        return "Stubbing{" + description + (remaining >= 0 ? ", remaining=" + remaining : "") + '}';
    }
}
