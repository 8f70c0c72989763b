package dev.codexclient.testkit;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.codexclient.transport.StdioTransport;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A stand-in for the OpenAI Responses API on loopback, so that the real codex runs turns offline and
 * deterministically: a test scripts what the "model" answers, runs codex against it, and then verifies what codex
 * sent.
 *
 * <p>Each {@code POST /v1/responses} is answered by the first matching {@link #when rule}, else by the next
 * {@link #enqueue queued} step; when neither exists the server answers HTTP 500 with an explanatory body (and
 * records the request in {@link #unmatchedRequests()}) instead of hanging.
 *
 * <pre>{@code
 * try (ScriptedModelServer model = ScriptedModelServer.start()) {
 *     model.enqueue(ModelStep.reply("Hello, wörld 👋"));
 *     // spawn `codex app-server` with model.environment() (or .stdio(model::applyEnvironment)), run a turn ...
 *     ModelRequest request = model.takeRequest(Duration.ofSeconds(5)).orElseThrow();
 *     assertThat(request.lastUserText()).isEqualTo("Say hello");
 * }
 * }</pre>
 */
public final class ScriptedModelServer implements AutoCloseable {

    /** The model name written to {@code config.toml}. */
    public static final String MODEL = "mock-model";

    private static final AtomicInteger SERVER_IDS = new AtomicInteger();

    private final HttpServer server;
    private final ExecutorService executor;
    private final Object lock = new Object();
    private final Deque<ModelStep> queue = new ArrayDeque<>();
    private final List<Rule> rules = new ArrayList<>();
    private final List<ModelRequest> requests = new ArrayList<>();
    private final List<ModelRequest> unmatched = new ArrayList<>();
    private final LinkedBlockingQueue<ModelRequest> untaken = new LinkedBlockingQueue<>();
    // Guarded by lock.
    private boolean recording = true;
    private int received;
    private final CountDownLatch closed = new CountDownLatch(1);
    private final ResponsesStream stream = new ResponsesStream(MODEL);
    private IsolatedHome isolatedHome;

    private record Rule(Predicate<ModelRequest> predicate, Deque<ModelStep> steps, boolean repeat) {
    }

    private ScriptedModelServer(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /**
     * Starts a server on an ephemeral port of 127.0.0.1.
     *
     * @return the running server; close it to stop it
     */
    public static ScriptedModelServer start() {
        int serverId = SERVER_IDS.incrementAndGet();
        AtomicInteger threads = new AtomicInteger();
        ThreadFactory factory = runnable -> {
            Thread thread = new Thread(runnable, "scripted-model-" + serverId + "-http-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
        ExecutorService executor = Executors.newCachedThreadPool(factory);
        try {
            HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            http.setExecutor(executor);
            ScriptedModelServer model = new ScriptedModelServer(http, executor);
            http.createContext("/", model::handle);
            http.start();
            return model;
        } catch (IOException e) {
            executor.shutdownNow();
            throw new UncheckedIOException("cannot start the scripted model server", e);
        }
    }

    /**
     * Whether requests are kept for {@link #requests()} and {@link #takeRequest(Duration)} (default true). A run of
     * thousands of turns turns it off so that its memory stays flat: requests are still matched against the rules
     * and answered, and a rule's predicate still sees each one; only requests no rule matched are kept
     * ({@link #unmatchedRequests()}).
     *
     * @param record whether to keep the requests from now on
     * @return this server
     */
    public ScriptedModelServer recordRequests(boolean record) {
        synchronized (lock) {
            recording = record;
        }
        return this;
    }

    /** {@return the port the server listens on} */
    public int port() {
        return server.getAddress().getPort();
    }

    /** {@return the base URL codex is pointed at: {@code http://127.0.0.1:PORT/v1}} */
    public URI baseUrl() {
        return URI.create("http://127.0.0.1:" + port() + "/v1");
    }

    /**
     * Appends steps to the FIFO queue used when no rule matches.
     *
     * @param steps the steps, one per request
     * @return this server, for chaining
     */
    public ScriptedModelServer enqueue(ModelStep... steps) {
        synchronized (lock) {
            for (ModelStep step : steps) {
                queue.addLast(Objects.requireNonNull(step, "step"));
            }
        }
        return this;
    }

    /**
     * Adds a rule: requests matching {@code predicate} are answered by {@code steps}, one step per request, before
     * the queue is consulted; a rule whose steps are used up no longer matches. Rules are tried in the order they
     * were added, which lets several threads run at once deterministically, e.g.
     * {@code model.when(r -> r.lastUserText().contains("alpha"), ModelStep.reply("A"))}.
     *
     * @param predicate selects the requests the rule answers; one that throws counts as not matching
     * @param steps the steps, one per request
     * @return this server, for chaining
     */
    public ScriptedModelServer when(Predicate<ModelRequest> predicate, ModelStep... steps) {
        if (steps.length == 0) {
            throw new IllegalArgumentException("at least one step is needed");
        }
        synchronized (lock) {
            rules.add(new Rule(Objects.requireNonNull(predicate, "predicate"), new ArrayDeque<>(List.of(steps)),
                    false));
        }
        return this;
    }

    /**
     * Adds a rule that answers every matching request with {@code step}, for as long as the server runs.
     *
     * @param predicate selects the requests the rule answers; one that throws counts as not matching
     * @param step the step that answers every matching request
     * @return this server, for chaining
     */
    public ScriptedModelServer whenAlways(Predicate<ModelRequest> predicate, ModelStep step) {
        synchronized (lock) {
            rules.add(new Rule(Objects.requireNonNull(predicate, "predicate"),
                    new ArrayDeque<>(List.of(Objects.requireNonNull(step, "step"))), true));
        }
        return this;
    }

    /** {@return the number of queued steps plus the steps left in one-shot rules} */
    public int pendingSteps() {
        synchronized (lock) {
            int pending = queue.size();
            for (Rule rule : rules) {
                if (!rule.repeat()) {
                    pending += rule.steps().size();
                }
            }
            return pending;
        }
    }

    /**
     * The next request not yet taken, waiting up to {@code timeout}; empty if none arrived in time. Requests are
     * taken in arrival order.
     *
     * @param timeout how long to wait at most
     * @return the request, or empty if none arrived in time
     * @throws InterruptedException when the thread is interrupted while waiting
     */
    public Optional<ModelRequest> takeRequest(Duration timeout) throws InterruptedException {
        return Optional.ofNullable(untaken.poll(timeout.toNanos(), TimeUnit.NANOSECONDS));
    }

    /** {@return every request received so far, in arrival order} */
    public List<ModelRequest> requests() {
        synchronized (lock) {
            return List.copyOf(requests);
        }
    }

    /** {@return the number of requests received so far, kept or not} */
    public int requestCount() {
        synchronized (lock) {
            return received;
        }
    }

    /** {@return requests that found neither a rule nor a queued step and were answered with HTTP 500} */
    public List<ModelRequest> unmatchedRequests() {
        synchronized (lock) {
            return List.copyOf(unmatched);
        }
    }

    /**
     * {@return the {@code config.toml} that points codex at this server: a {@code mock} provider speaking the Responses
     * API over plain HTTP, with retries off (so a scripted failure fails the turn at once) and the features that would
     * reach the network or the user's machine turned off; {@code /tmp} is not among a sandboxed command's writable
     * places (its {@code TMPDIR}, inside the private home, is), so codex's sandbox makes nothing in the machine's
     * {@code /tmp}, where it leaves its mount points behind when it is killed mid-command}
     */
    public String configToml() {
        return """
                model = "%s"
                model_provider = "mock"
                approval_policy = "on-request"
                sandbox_mode = "workspace-write"
                check_for_update_on_startup = false

                [analytics]
                enabled = false

                [feedback]
                enabled = false

                [history]
                persistence = "none"

                [sandbox_workspace_write]
                exclude_slash_tmp = true

                [model_providers.mock]
                name = "mock"
                base_url = "%s"
                wire_api = "responses"
                request_max_retries = 0
                stream_max_retries = 0
                stream_idle_timeout_ms = 300000
                supports_websockets = false
                """.formatted(MODEL, baseUrl());
    }

    /**
     * Writes {@link #configToml()} as {@code dir/config.toml} (creating {@code dir}) and returns {@code dir}.
     *
     * @param dir the directory to write {@code config.toml} into
     * @return {@code dir}
     */
    public Path writeCodexHome(Path dir) {
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("config.toml"), configToml(), StandardCharsets.UTF_8);
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write config.toml into " + dir, e);
        }
    }

    /**
     * {@return a private CODEX_HOME with {@code config.toml}: {@code .codex} inside {@link #home()}, created on first
     * use and deleted on {@link #close()}}
     */
    public Path codexHome() {
        return isolatedHome().codexHome();
    }

    /**
     * {@return a private, empty HOME for the codex child (see {@link IsolatedHome}): its login shell reads no profile
     * of the machine, and codex writes nothing into the user's real home} Created on first use, deleted on {@link
     * #close()}.
     */
    public Path home() {
        return isolatedHome().home();
    }

    private IsolatedHome isolatedHome() {
        synchronized (lock) {
            if (isolatedHome == null) {
                IsolatedHome created = IsolatedHome.create();
                writeCodexHome(created.codexHome());
                isolatedHome = created;
            }
            return isolatedHome;
        }
    }

    /**
     * Variables removed from a codex child's environment by {@link #applyEnvironment(Map)}: those through which the
     * user's real credentials or endpoints could reach the child. The same set as
     * {@link IsolatedHome#CLEARED_VARIABLES}.
     */
    public static final Set<String> CLEARED_VARIABLES = IsolatedHome.CLEARED_VARIABLES;

    /**
     * {@return the variables to set for a codex child process: {@code HOME} = {@link #home()}, {@code CODEX_HOME} =
     * {@link #codexHome()} and {@code TMPDIR} = {@code tmp} inside the home}
     */
    public Map<String, String> environment() {
        return isolatedHome().environment();
    }

    /**
     * Prepares a child environment (e.g. {@link ProcessBuilder#environment()}) in place: removes the
     * {@link #CLEARED_VARIABLES} and the XDG directories ({@link IsolatedHome#HOME_VARIABLES}) and sets
     * {@link #environment()}.
     *
     * @param childEnvironment the child's environment, changed in place
     */
    public void applyEnvironment(Map<String, String> childEnvironment) {
        isolatedHome().applyEnvironment(childEnvironment);
    }

    /**
     * Prepares a stdio transport the same way, pointing the codex it spawns at this server:
     * {@code CodexClient.builder().codexBinary(CodexBinary.find()).stdio(model::applyEnvironment)}.
     *
     * @param stdio the builder of the transport that spawns codex, e.g. from {@code CodexClient.builder().stdio(...)}
     */
    public void applyEnvironment(StdioTransport.Builder stdio) {
        isolatedHome().applyEnvironment(stdio);
    }

    /** Stops the server: stalled requests are released, connections closed, threads stopped, HOME deleted. */
    @Override
    public void close() {
        closed.countDown();
        server.stop(0);
        executor.shutdownNow();
        IsolatedHome home;
        synchronized (lock) {
            home = isolatedHome;
            isolatedHome = null;
        }
        if (home != null) {
            home.close();
        }
    }

    private void handle(HttpExchange exchange) {
        try (exchange) {
            byte[] bytes;
            try (InputStream in = exchange.getRequestBody()) {
                bytes = in.readAllBytes();
            }
            ModelRequest request;
            Optional<ModelStep> step;
            synchronized (lock) {
                request = ModelRequest.create(received++, exchange.getRequestMethod(),
                        exchange.getRequestURI().getPath(), exchange.getRequestHeaders(),
                        new String(bytes, StandardCharsets.UTF_8));
                if (recording) {
                    requests.add(request);
                }
                boolean responses = "POST".equals(request.method()) && request.path().endsWith("/responses");
                step = responses ? nextStep(request) : Optional.empty();
                if (responses && step.isEmpty()) {
                    unmatched.add(request);
                }
            }
            if (recording) {
                untaken.add(request);
            }
            if (!"POST".equals(request.method()) || !request.path().endsWith("/responses")) {
                sendError(exchange, 404, "ScriptedModelServer serves only POST /v1/responses, not "
                        + request.method() + " " + request.path());
            } else if (step.isEmpty()) {
                sendError(exchange, 500, "ScriptedModelServer: no rule matches request #" + request.sequence()
                        + " and the queue is empty");
            } else {
                answer(exchange, step.get());
            }
        } catch (IOException e) {
            // The client went away (e.g. an interrupted turn); nothing is waiting for this answer.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private Optional<ModelStep> nextStep(ModelRequest request) {
        for (Iterator<Rule> it = rules.iterator(); it.hasNext(); ) {
            Rule rule = it.next();
            if (rule.steps().isEmpty()) {
                continue;
            }
            boolean matches;
            try {
                matches = rule.predicate().test(request);
            } catch (RuntimeException e) {
                matches = false;
            }
            if (matches) {
                return Optional.of(rule.repeat() ? rule.steps().peekFirst() : rule.steps().pollFirst());
            }
        }
        return Optional.ofNullable(queue.pollFirst());
    }

    private void answer(HttpExchange exchange, ModelStep step) throws IOException, InterruptedException {
        switch (step.kind()) {
            case FAIL -> {
                String text = step.failureBody();
                if (step.echoesAuthorization()) {
                    ObjectNode echo = ModelStep.JSON.createObjectNode();
                    echo.putObject("error").put("message", "invalid request: authorization="
                            + Objects.requireNonNullElse(exchange.getRequestHeaders().getFirst("Authorization"), "")
                            + " was rejected").put("type", "invalid_request_error");
                    text = echo.toString();
                }
                byte[] body = text.getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("content-type", "application/json");
                exchange.sendResponseHeaders(step.httpStatus(), body.length == 0 ? -1 : body.length);
                if (body.length > 0) {
                    exchange.getResponseBody().write(body);
                }
            }
            case STALL -> {
                // Waits for the stall to end or the server to close, whichever comes first.
                closed.await(step.stallDuration().toNanos(), TimeUnit.NANOSECONDS);
                // Then the stream ends without response.completed, which codex treats as a dropped stream.
                exchange.getResponseHeaders().set("content-type", "text/event-stream");
                exchange.sendResponseHeaders(200, 0);
            }
            case RESPONSE -> stream(exchange, step);
        }
    }

    private void stream(HttpExchange exchange, ModelStep step) throws IOException {
        exchange.getResponseHeaders().set("content-type", "text/event-stream");
        exchange.getResponseHeaders().set("cache-control", "no-cache");
        exchange.sendResponseHeaders(200, 0);
        try (OutputStream out = exchange.getResponseBody()) {
            stream.write(out, step);
        }
    }

    private static void sendError(HttpExchange exchange, int status, String message) throws IOException {
        ObjectNode body = ModelStep.JSON.createObjectNode();
        body.putObject("error").put("message", message).put("type", "scripted_model_error");
        byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("content-type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }
}
