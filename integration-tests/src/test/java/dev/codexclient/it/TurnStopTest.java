package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.inMemory;
import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexTurn;
import dev.codexclient.TurnResult;
import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link CodexTurn#stopAsync()}: the interrupt, then the end of the commands the turn started that codex keeps running
 * as background terminals, and of no other terminal of the thread. (On the real codex: the Kotlin module's
 * RealCodexKotlinTest, whose cancelled turn's {@code sleep} exits.)
 */
@ExtendWith(CodexTestExtension.class)
class TurnStopTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    /** The thread's terminals as codex lists them: the command of the turn playing now and one of an earlier turn. */
    private static void terminals(FakeCodexAppServer fake, CompletableFuture<String> commandItem) {
        fake.on("thread/backgroundTerminals/list").always().respondWith(request -> Map.of(
                "data", List.of(
                        Map.of("command", "npm run dev", "cwd", "/w", "itemId", commandItem.join(), "processId", 41),
                        Map.of("command", "make serve", "cwd", "/w", "itemId", "an-earlier-turns", "processId", 7)),
                "nextCursor", ""));
        fake.on("thread/backgroundTerminals/terminate").always().respond(Map.of("terminated", true));
    }

    private static CodexTurn startServing(CodexClient client, CompletableFuture<String> commandItem) {
        CodexTurn turn = client.startThread().startTurn("serve");
        turn.onItemStarted(item -> {
            if (item instanceof ThreadItem.CommandExecution c) {
                commandItem.complete(c.id());
            }
        });
        return turn;
    }

    @Test
    void stoppingATurnInterruptsItAndEndsItsOwnBackgroundTerminalsOnly(FakeCodexAppServer fake) throws Exception {
        fake.onTurnStart(t -> t.commandExecution("npm run dev", "", 0).pause(Duration.ofHours(1)).completed());
        CompletableFuture<String> commandItem = new CompletableFuture<>();
        terminals(fake, commandItem);
        try (CodexClient client = inMemory(fake).experimentalApi(true).build()) {
            CodexTurn turn = startServing(client, commandItem);
            commandItem.get(WAIT.toSeconds(), TimeUnit.SECONDS);

            TurnResult result = turn.stopAsync().get(WAIT.toSeconds(), TimeUnit.SECONDS);

            assertThat(result.status()).isEqualTo(TurnStatus.INTERRUPTED);
            assertThat(fake.takeRequest("turn/interrupt", WAIT)).isNotNull();
            assertThat(fake.takeRequest("thread/backgroundTerminals/terminate", WAIT).params().path("processId")
                    .asInt()).isEqualTo(41);
            assertThat(fake.requests()).filteredOn(r -> r.method().equals("thread/backgroundTerminals/terminate"))
                    .hasSize(1);
        }
    }

    @Test
    void withoutTheExperimentalApiAStopIsAnInterrupt(FakeCodexAppServer fake) throws Exception {
        fake.onTurnStart(t -> t.commandExecution("npm run dev", "", 0).pause(Duration.ofHours(1)).completed());
        CompletableFuture<String> commandItem = new CompletableFuture<>();
        terminals(fake, commandItem);
        try (CodexClient client = inMemory(fake).build()) {
            CodexTurn turn = startServing(client, commandItem);
            commandItem.get(WAIT.toSeconds(), TimeUnit.SECONDS);

            assertThat(turn.stopAsync().get(WAIT.toSeconds(), TimeUnit.SECONDS).status())
                    .isEqualTo(TurnStatus.INTERRUPTED);
            assertThat(fake.requests()).noneMatch(r -> r.method().startsWith("thread/backgroundTerminals"));
        }
    }

    @Test
    void aTurnWithoutCommandsListsNoTerminals(FakeCodexAppServer fake) throws Exception {
        fake.onTurnStart(t -> t.agentMessage("thinking").pause(Duration.ofHours(1)).completed());
        try (CodexClient client = inMemory(fake).experimentalApi(true).build()) {
            CodexTurn turn = client.startThread().startTurn("think");
            assertThat(turn.stopAsync().get(WAIT.toSeconds(), TimeUnit.SECONDS).status())
                    .isEqualTo(TurnStatus.INTERRUPTED);
            assertThat(fake.requests()).noneMatch(r -> r.method().startsWith("thread/backgroundTerminals"));
        }
    }
}
