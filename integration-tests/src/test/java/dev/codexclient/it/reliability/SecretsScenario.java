package dev.codexclient.it.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.TurnResult;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.protocol.ChatgptAuthTokensRefreshResponse;
import dev.codexclient.protocol.LoginAccountParams;
import dev.codexclient.protocol.ThreadListParams;
import dev.codexclient.testkit.ClientReply;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.testkit.Fault;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Runs in a JVM of its own (started by {@link SecretsTest}) with SLF4J at TRACE from the first logger on: logs in
 * with an API key, answers a ChatGPT token refresh, meets server errors, a failed turn and a dying child that all
 * echo the secrets, and prints every exception message, {@code toString()} and stderr tail it sees to stdout. It
 * never prints a secret itself: the test then searches the log file, stdout and stderr for them.
 */
public final class SecretsScenario {
    /** Shaped so that no built-in redaction pattern matches: only registration can hide them. */
    static final String API_KEY = "codexkey-7f3a9c21d4e8b6a0q";
    static final String TOKEN = "chatgpt-access-5e1b88d0c37a4f29";
    private static final Duration WAIT = Duration.ofSeconds(10);

    private SecretsScenario() {
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.on("account/login/start").once().respond(java.util.Map.of("type", "apiKey"));
            fake.onTurnStart(t -> t.agentMessage("checking").failed("401 Unauthorized: incorrect API key "
                    + API_KEY));
            CodexClient client = CodexClient.builder()
                    .command(fake.childProcessCommand())
                    .apiKey(API_KEY)
                    .chatgptTokenRefresh(p -> CompletableFuture.completedFuture(ChatgptAuthTokensRefreshResponse
                            .builder().accessToken(TOKEN).chatgptAccountId("acct-1").build()))
                    .requestTimeout(WAIT)
                    .build();
            try {
                JsonNode login = fake.takeRequest("account/login/start", WAIT).params();
                out.println("check login-carried-key=" + API_KEY.equals(login.path("apiKey").asText()));

                ClientReply refresh = fake.requestChatgptTokenRefresh().awaitResponse(WAIT);
                out.println("check refresh-carried-token=" + TOKEN.equals(refresh.result().path("accessToken")
                        .asText()));

                CodexThread thread = client.startThread();
                out.println("seen thread " + thread);
                TurnResult failed = thread.startTurn("use the key").await(WAIT);
                out.println("seen turn-result " + failed);
                try {
                    failed.orThrow();
                    out.println("check turn-failed=false");
                } catch (RuntimeException e) {
                    seen(out, "turn-exception", e);
                }

                fake.on("thread/list").once().respondError(-32600, "bad credentials " + API_KEY + " / " + TOKEN);
                try {
                    client.rpc().threadList(ThreadListParams.builder().build()).join();
                } catch (CompletionException e) {
                    seen(out, "rpc-exception", e.getCause());
                }


                // Protocol values holding credentials print masked (the implicit record toString would not).
                out.println("seen params-toString " + new LoginAccountParams.ApiKey(API_KEY));
                out.println("seen refresh-toString " + ChatgptAuthTokensRefreshResponse.builder()
                        .accessToken(TOKEN).chatgptAccountId("acct-1").build());

                // The child logs the secrets to stderr and dies while a call is pending.
                fake.apply(Fault.stall());
                CompletableFuture<?> pending = client.rpc().threadList(ThreadListParams.builder().build());
                fake.takeRequest("thread/list", WAIT);
                fake.apply(Fault.stderr("FATAL auth: api key " + API_KEY + " rejected, access token " + TOKEN
                        + " expired\n"));
                fake.apply(Fault.exit(1));
                try {
                    pending.join();
                    out.println("check child-failure=false");
                } catch (CompletionException e) {
                    seen(out, "transport-exception", e.getCause());
                    if (e.getCause() instanceof CodexTransportException t) {
                        out.println("check tail-captured=" + t.stderrTail().contains("FATAL auth"));
                        out.println("seen stderr-tail " + t.stderrTail());
                        out.println("seen exit-code " + t.exitCode());
                    }
                }
            } finally {
                client.close();
            }

            // A login the server refuses, echoing the key: build() fails and must not carry the key.
            fake.resume();
            fake.on("account/login/start").once().respondError(-32600, "invalid api key " + API_KEY);
            try (CodexClient refused = CodexClient.builder().transport(fake.connectInMemory()).apiKey(API_KEY)
                    .requestTimeout(WAIT).build()) {
                out.println("check login-refused=false " + refused.isClosed());
            } catch (RuntimeException e) {
                out.println("check login-refused-typed=" + (e instanceof CodexRpcException));
                seen(out, "login-exception", e);
            }
        }
        out.println("SCENARIO DONE");
    }

    private static void seen(PrintStream out, String what, Throwable e) {
        java.io.StringWriter trace = new java.io.StringWriter();
        e.printStackTrace(new java.io.PrintWriter(trace));
        out.println("seen " + what + "-trace " + trace);
        out.println("seen " + what + " " + e);
        for (Throwable s : e.getSuppressed()) {
            out.println("seen " + what + "-suppressed " + s);
        }
        Throwable cause = e.getCause();
        while (cause != null && cause != e) {
            out.println("seen " + what + "-cause " + cause);
            e = cause;
            cause = cause.getCause();
        }
    }
}
