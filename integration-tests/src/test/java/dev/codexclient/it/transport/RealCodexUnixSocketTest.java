package dev.codexclient.it.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.TurnResult;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.protocol.CommandExecutionRequestApprovalResponse;
import dev.codexclient.protocol.FsReadFileParams;
import dev.codexclient.protocol.FsWriteFileParams;
import dev.codexclient.protocol.ServerRequestMethods;
import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.protocol.ThreadListParams;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.transport.Transport;
import dev.codexclient.transport.UnixSocketTransport;
import dev.codexclient.transport.WebSocketTransport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client over codex's Unix socket ({@code codex app-server --listen unix://PATH}), end to end against the real
 * binary: the handshake, a streamed turn, an approval, messages of 20 MB each way, and the server dying under it.
 */
@Tag("real-codex")
@Timeout(120)
class RealCodexUnixSocketTest {

    private static final Duration TURN = Duration.ofSeconds(60);

    @Test
    void aStreamedTurnAndAnApprovalOverTheUnixSocket() throws Exception {
        try (ListeningCodex codex = ListeningCodex.unixSocket()) {
            String text = "Héllo over a Unix socket — ünïcödé ✓ 🚀, 漢字, done.";
            codex.model.enqueue(ModelStep.reply(text).withChunkSize(4));
            codex.model.enqueue(ModelStep.callTool("exec_command",
                    Map.of("cmd", "printf 'over-uds\\n' | tee uds.txt", "login", false)), ModelStep.reply("written"));
            UnixSocketTransport transport = UnixSocketTransport.builder().path(codex.socket()).build();
            List<String> approved = new CopyOnWriteArrayList<>();
            try (CodexClient client = codex.clientBuilder(transport).commandApprovals(ApprovalPolicy.sync(req -> {
                approved.add(req.params().command());
                return ApprovalDecision.ACCEPT;
            })).build()) {
                assertThat(transport.serverMaxFrameBytes()).as("codex advertises its frame limit")
                        .hasValue(16 * 1024 * 1024);
                assertThat(client.serverInfo().userAgent()).hasValueSatisfying(a -> assertThat(a).startsWith("codex-client-it/"));

                CodexThread thread = client.startThread(codex.threadParams().build());
                CodexTurn turn = thread.startTurn("Say hello");
                StringBuilder streamed = new StringBuilder();
                List<String> deltaThreads = new CopyOnWriteArrayList<>();
                turn.onAgentMessageDelta(d -> {
                    streamed.append(d.delta());
                    deltaThreads.add(Thread.currentThread().getName());
                });
                TurnResult result = turn.await(TURN);
                assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
                assertThat(result.finalText()).isEqualTo(text);
                assertThat(streamed.toString()).isEqualTo(text);
                assertThat(deltaThreads).isNotEmpty().noneMatch(t -> t.startsWith("codex-uds-reader-"));

                TurnResult written = thread.startTurn("write a file").await(TURN);
                assertThat(written.status()).isEqualTo(TurnStatus.COMPLETED);
                assertThat(approved).singleElement().asString().contains("tee uds.txt");
                assertThat(written.itemsOf(ThreadItem.CommandExecution.class)).singleElement()
                        .satisfies(c -> assertThat(c.aggregatedOutput()).contains("over-uds"));
                assertThat(Files.readString(codex.workspace.resolve("uds.txt"))).isEqualTo("over-uds\n");
            }
        }
    }

    @Test
    void twentyMegabytesEachWayOverTheUnixSocket() throws Exception {
        try (ListeningCodex codex = ListeningCodex.unixSocket()) {
            roundTripTwentyMegabytes(codex, UnixSocketTransport.builder().path(codex.socket()).build(), "unix");
        }
    }

    @Test
    void twentyMegabytesEachWayOverTheWebSocket() throws Exception {
        try (ListeningCodex codex = ListeningCodex.webSocket()) {
            roundTripTwentyMegabytes(codex, WebSocketTransport.builder(codex.uri()).build(), "websocket");
        }
    }

    /**
     * {@code fs/writeFile} carries 15 MiB of random bytes as base64 (a 20 MiB request, more than codex's 16 MiB frame
     * limit, so it must be fragmented), and {@code fs/readFile} brings them back (a 20 MiB response).
     */
    private static void roundTripTwentyMegabytes(ListeningCodex codex, Transport transport, String label)
            throws Exception {
        byte[] data = new byte[15 * 1024 * 1024];
        new Random(20).nextBytes(data);
        String base64 = Base64.getEncoder().encodeToString(data);
        Path file = codex.workspace.resolve("big.bin");
        try (CodexClient client = codex.clientBuilder(transport).build()) {
            long started = System.nanoTime();
            client.rpc().fsWriteFile(FsWriteFileParams.builder().path(file.toString()).dataBase64(base64).build())
                    .get(60, TimeUnit.SECONDS);
            long written = System.nanoTime();
            String back = client.rpc().fsReadFile(FsReadFileParams.builder().path(file.toString()).build())
                    .get(60, TimeUnit.SECONDS).dataBase64();
            long read = System.nanoTime();
            assertThat(Files.readAllBytes(file)).isEqualTo(data);
            assertThat(back.length()).isEqualTo(base64.length()).isGreaterThan(20_000_000);
            assertThat(Arrays.equals(Base64.getDecoder().decode(back), data)).isTrue();
            System.out.printf("20 MB over %s: fs/writeFile %d ms, fs/readFile %d ms%n", label,
                    TimeUnit.NANOSECONDS.toMillis(written - started), TimeUnit.NANOSECONDS.toMillis(read - written));
            // The connection is still fine afterwards.
            assertThat(client.rpc().threadList(ThreadListParams.builder().build()).get(30, TimeUnit.SECONDS))
                    .isNotNull();
        }
    }

    @Test
    void theServerDyingFailsEveryPendingCallTypedAndPromptly() throws Exception {
        try (ListeningCodex codex = ListeningCodex.unixSocket()) {
            codex.model.when(r -> r.lastUserText().equals("wait for the model"),
                    ModelStep.stall(Duration.ofSeconds(90)));
            codex.model.when(r -> r.lastUserText().equals("write a file"),
                    ModelStep.callTool("exec_command", Map.of("cmd", "printf x | tee x.txt", "login", false)));
            CountDownLatch approvalAsked = new CountDownLatch(1);
            CompletableFuture<CommandExecutionRequestApprovalResponse> neverDecided = new CompletableFuture<>();
            UnixSocketTransport transport = UnixSocketTransport.builder().path(codex.socket()).build();
            CodexClient client = codex.clientBuilder(transport).serverRequest(
                    ServerRequestMethods.ITEM_COMMAND_EXECUTION_REQUEST_APPROVAL, p -> {
                        approvalAsked.countDown();
                        return neverDecided;
                    }).build();
            try {
                CodexTurn waitingOnModel = client.startThread(codex.threadParams().build())
                        .startTurn("wait for the model");
                CodexTurn waitingOnApproval = client.startThread(codex.threadParams().build())
                        .startTurn("write a file");
                assertThat(approvalAsked.await(30, TimeUnit.SECONDS)).isTrue();
                CompletableFuture<?> slowCall = client.rpc().withTimeout(Duration.ofMinutes(5))
                        .threadList(ThreadListParams.builder().build());
                slowCall.get(30, TimeUnit.SECONDS);

                codex.kill();

                for (CompletableFuture<?> pending : List.of(waitingOnModel.result(), waitingOnApproval.result())) {
                    assertThatThrownBy(() -> pending.get(20, TimeUnit.SECONDS))
                            .isInstanceOf(ExecutionException.class)
                            .cause().isInstanceOf(CodexTransportException.class)
                            .hasMessageContaining("unix socket: " + codex.socket());
                }
                assertThatThrownBy(() -> client.rpc().threadList(ThreadListParams.builder().build())
                        .get(20, TimeUnit.SECONDS)).cause().isInstanceOf(CodexTransportException.class);
                assertThat(client.isClosed()).isTrue();
            } finally {
                client.close();
            }
        }
    }

    /** The same, over the WebSocket listener: the two transports report a dead server alike. */
    @Test
    void theServerDyingUnderAWebSocketFailsPendingCallsToo() throws Exception {
        try (ListeningCodex codex = ListeningCodex.webSocket()) {
            codex.model.enqueue(ModelStep.stall(Duration.ofSeconds(90)));
            CodexClient client = codex.clientBuilder(WebSocketTransport.builder(codex.uri()).build()).build();
            try {
                CodexTurn turn = client.startThread(codex.threadParams().build()).startTurn("wait");
                assertThat(codex.model.takeRequest(Duration.ofSeconds(30))).isPresent();
                codex.kill();
                assertThatThrownBy(() -> turn.result().get(20, TimeUnit.SECONDS))
                        .cause().isInstanceOf(CodexTransportException.class);
            } finally {
                client.close();
            }
        }
    }
}
