package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexTurn;
import dev.codexclient.RestartPolicy;
import dev.codexclient.TurnResult;
import dev.codexclient.errors.CodexException;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.telemetry.PoolMemberAdded;
import dev.codexclient.telemetry.PoolMemberRemoved;
import dev.codexclient.telemetry.PooledThreadRecreated;
import dev.codexclient.pool.CodexPool;
import dev.codexclient.pool.PoolEndpoint;
import dev.codexclient.pool.PooledThread;
import dev.codexclient.protocol.AskForApproval;
import dev.codexclient.protocol.SandboxMode;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.IsolatedHome;
import dev.codexclient.testkit.ListenAddress;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.testkit.ScriptedModelServer;
import dev.codexclient.transport.ReadinessProbe;
import dev.codexclient.transport.SignedBearerTokens;
import dev.codexclient.transport.WebSocketTransport;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pool behind a resolver whose answer changes, over three real {@code codex app-server --listen ws://127.0.0.1:PORT}
 * servers with signed bearer tokens: a member is added, one removed (it drains and closes), one SIGKILLed and
 * started again on the same port with the same {@code CODEX_HOME}. Every turn submitted ends completed or with a
 * typed failure, none hangs; the threads of the killed member resume there, and its thread that had no turn is
 * started again.
 */
@Tag("real-codex")
@Timeout(300)
class RealCodexPoolResolverTest {
    private static final Duration TURN_WAIT = Duration.ofSeconds(90);
    private static final String ISSUER = "codex-client-it";
    private static final String AUDIENCE = "codex-app-server";

    @TempDir
    Path dir;

    private final ScriptedModelServer model = ScriptedModelServer.start();
    private final List<Server> servers = new ArrayList<>();
    private final List<String> events = new CopyOnWriteArrayList<>();
    /** The servers by their name in the pool, as they start. */
    private final Map<String, Server> byName = new ConcurrentHashMap<>();

    /**
     * One {@code --listen} app-server: its port and home stay when it is killed and started again. codex picks the
     * port on the first start ({@link ListenAddress}): one picked here and freed could be taken before codex binds it.
     */
    private final class Server implements AutoCloseable {
        final String name;
        /** 0 until the first start. */
        int port;
        final IsolatedHome home;
        final Path secret;
        Process process;

        Server(String name, Path secret) {
            this.name = name;
            this.home = IsolatedHome.create();
            this.secret = secret;
            model.writeCodexHome(home.codexHome());
            servers.add(this);
        }

        URI uri() {
            return URI.create("ws://127.0.0.1:" + port);
        }

        /** Known once the server has started: its address is its name in the pool. */
        String member() {
            if (port == 0) {
                throw new IllegalStateException(name + " has not started: codex has not picked its port yet");
            }
            return endpoint().name();
        }

        PoolEndpoint endpoint() {
            return PoolEndpoint.of(uri());
        }

        Server start() throws IOException, InterruptedException {
            Path log = home.home().resolve("app-server.log");
            ProcessBuilder pb = new ProcessBuilder(RealCodexFixture.binary().toString(), "app-server", "--listen",
                    uri().toString(), "--ws-auth", "signed-bearer-token", "--ws-shared-secret-file",
                    secret.toString(), "--ws-issuer", ISSUER, "--ws-audience", AUDIENCE)
                    .directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            home.applyEnvironment(pb.environment());
            process = pb.start();
            if (port == 0) {
                port = ListenAddress.await(log, process, Duration.ofSeconds(60)).getPort();
                byName.put(member(), this);
            }
            ReadinessProbe.of(uri()).awaitReady(Duration.ofSeconds(60));
            return this;
        }

        /** SIGKILL to the native server and its launcher: no close frame, no goodbye. */
        void kill() {
            List<ProcessHandle> tree = new ArrayList<>();
            process.toHandle().descendants().forEach(tree::add);
            tree.add(process.toHandle());
            tree.forEach(ProcessHandle::destroyForcibly);
            tree.forEach(p -> p.onExit().orTimeout(10, TimeUnit.SECONDS).join());
        }

        @Override
        public void close() {
            if (process != null) {
                kill();
            }
            home.close();
        }
    }

    @AfterEach
    void stop() {
        servers.forEach(Server::close);
        model.close();
    }

    private Path secretFile() throws IOException {
        byte[] random = new byte[48];
        new SecureRandom().nextBytes(random);
        return Files.writeString(dir.resolve("ws-secret"), Base64.getEncoder().encodeToString(random));
    }

    private ThreadStartParams params() {
        return ThreadStartParams.builder().cwd(dir.toString()).approvalPolicy(AskForApproval.Simple.UNTRUSTED)
                .sandbox(SandboxMode.WORKSPACE_WRITE).build();
    }

    /** A turn's end: its status, or the type of its failure; never "still running" (the wait is bounded). */
    private static String outcome(CompletableFuture<TurnResult> result) throws InterruptedException {
        try {
            TurnResult r = result.get(TURN_WAIT.toSeconds(), TimeUnit.SECONDS);
            return r.status() == TurnStatus.COMPLETED ? "completed" : "ended " + r.status();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof java.util.concurrent.CompletionException c ? c.getCause()
                    : e.getCause();
            assertThat(cause).as("a turn that fails fails typed").isInstanceOf(CodexException.class);
            return "typed " + cause.getClass().getSimpleName();
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("a turn hung for " + TURN_WAIT, e);
        }
    }

    private static CompletableFuture<TurnResult> turn(PooledThread t, String text) {
        return t.startTurnAsync(text).thenCompose(CodexTurn::result);
    }

    private static String state(CodexPool pool, String member) {
        return pool.stats().stream().filter(s -> s.name().equals(member)).findFirst()
                .map(s -> s.state().name()).orElse("ABSENT");
    }

    @Test
    void threeListeningServersBehindAChangingAnswer() throws Exception {
        model.whenAlways(r -> true, ModelStep.reply("done"));
        Path secret = secretFile();
        SignedBearerTokens tokens = SignedBearerTokens.builder().sharedSecretFile(secret).issuer(ISSUER)
                .audience(AUDIENCE).build();
        Server a = new Server("a", secret).start();
        Server b = new Server("b", secret).start();
        Server c = new Server("c", secret);
        AtomicReference<List<PoolEndpoint>> answer = new AtomicReference<>(List.of(a.endpoint(), b.endpoint()));
        CodexTelemetryListener listener = new CodexTelemetryListener() {
            @Override
            public void poolMemberAdded(PoolMemberAdded e) {
                events.add("added " + byName.get(e.member()).name);
            }

            @Override
            public void poolMemberRemoved(PoolMemberRemoved e) {
                events.add("removed " + byName.get(e.member()).name);
            }

            @Override
            public void pooledThreadRecreated(PooledThreadRecreated e) {
                events.add("recreated on " + byName.get(e.member()).name);
            }
        };
        CodexPool pool = CodexPool.builder()
                .resolver(answer::get, endpoint -> CodexClient.builder()
                        .transportFactory(() -> WebSocketTransport.builder(endpoint.uri()).bearerToken(tokens).build())
                        .clientInfo("codex-client-it", "codex-client integration tests", "0")
                        .requestTimeout(Duration.ofSeconds(30))
                        .restartPolicy(RestartPolicy.builder().maxAttempts(40)
                                .backoff(Duration.ofMillis(100), Duration.ofMillis(500)).build())
                        .build())
                .resolveEvery(Duration.ofMillis(200))
                .healthCheckEvery(Duration.ofMillis(500), Duration.ofSeconds(5)).ejectAfter(3)
                .readmitBackoff(Duration.ofMillis(500), Duration.ofSeconds(2))
                .maxTurnsPerMember(4).maxQueuedTurnsPerMember(32)
                .telemetryListener(listener).build();
        List<String> outcomes = new ArrayList<>();
        try {
            List<PooledThread> threads = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                threads.add(pool.startThread(params()));
            }
            PooledThread fresh = pool.startThread(params());
            assertThat(fresh.memberName()).isEqualTo(a.endpoint().name());
            List<CompletableFuture<TurnResult>> first = new ArrayList<>();
            threads.forEach(t -> first.add(turn(t, "hello 1")));
            for (CompletableFuture<TurnResult> r : first) {
                assertThat(outcome(r)).isEqualTo("completed");
            }

            // A member more: the next threads go to it.
            c.start();
            answer.set(List.of(a.endpoint(), b.endpoint(), c.endpoint()));
            awaitCondition("c is a member", TURN_WAIT, () -> state(pool, c.endpoint().name()).equals("READY"));
            PooledThread onC = pool.startThread(params());
            assertThat(onC.memberName()).isEqualTo(c.endpoint().name());
            assertThat(outcome(turn(onC, "hello c"))).isEqualTo("completed");

            // b no longer named: turns submitted on its threads just before end completed or typed (rejected once
            // it drains); it then closes and leaves.
            List<CompletableFuture<TurnResult>> onB = new ArrayList<>();
            threads.stream().filter(t -> t.memberName().equals(b.endpoint().name()))
                    .forEach(t -> onB.add(turn(t, "hello b")));
            answer.set(List.of(a.endpoint(), c.endpoint()));
            for (CompletableFuture<TurnResult> r : onB) {
                outcomes.add(outcome(r));
            }
            awaitCondition("b left the pool", TURN_WAIT, () -> state(pool, b.endpoint().name()).equals("ABSENT"));
            b.kill();
            assertThat(pool.startThread(params()).memberName()).isIn(a.endpoint().name(), c.endpoint().name());

            // a killed and started again on its port with its CODEX_HOME: turns submitted while it is down wait
            // for its client's restart, its threads resume there, its thread without a turn is started again.
            List<PooledThread> onA = threads.stream().filter(t -> t.memberName().equals(a.endpoint().name()))
                    .toList();
            List<String> idsOnA = onA.stream().map(PooledThread::id).toList();
            a.kill();
            List<CompletableFuture<TurnResult>> during = new ArrayList<>();
            onA.forEach(t -> during.add(turn(t, "hello again")));
            a.start();
            for (CompletableFuture<TurnResult> r : during) {
                assertThat(outcome(r)).isEqualTo("completed");
            }
            assertThat(onA.stream().map(PooledThread::id).toList()).isEqualTo(idsOnA);
            String freshId = fresh.id();
            assertThat(outcome(turn(fresh, "first turn"))).isEqualTo("completed");
            assertThat(fresh.id()).isNotEqualTo(freshId);
            awaitCondition("a is ready again", TURN_WAIT, () -> state(pool, a.endpoint().name()).equals("READY"));
            assertThat(pool.drain(TURN_WAIT)).isTrue();
        } finally {
            pool.close();
        }
        assertThat(outcomes).allSatisfy(o -> assertThat(o).matches("completed|typed CodexPoolRejectedException"));
        assertThat(events).containsSubsequence("added a", "added b", "added c", "removed b", "recreated on a");
    }
}
