package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.WAIT;
import static dev.codexclient.it.ClientTestSupport.inMemory;
import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.TurnResult;
import dev.codexclient.drift.internal.ClientApiRequirements;
import dev.codexclient.drift.internal.ClientApiRequirements.Kind;
import dev.codexclient.drift.internal.ClientApiRequirements.Requirement;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Keeps the drift report's list of what the client API relies on ({@link ClientApiRequirements}) in step with the
 * API: every method the API sends is listed, and every API member an entry names exists.
 */
@ExtendWith(CodexTestExtension.class)
class ClientApiRequirementsTest {

    @Test
    void everyMethodTheClientApiSendsIsListed(FakeCodexAppServer fake) {
        fake.on("account/login/start").respond(Map.of("type", "apiKey"));
        fake.enqueueTurn(turn -> turn.agentMessage("done").planUpdate("plan").diffUpdate("diff").tokenUsage(1, 1)
                .completed());
        fake.enqueueTurn(turn -> turn.pause(Duration.ofSeconds(30)).completed());
        try (CodexClient client = inMemory(fake).apiKey("sk-requirements-test").build()) {
            CodexThread thread = client.startThread();
            TurnResult first = thread.startTurn("go").await(WAIT);
            assertThat(first.status()).isEqualTo(TurnStatus.COMPLETED);
            CodexTurn second = thread.startTurn("take your time").watchdog(Duration.ofMinutes(5))
                    .deadline(Duration.ofMinutes(5));
            second.steerAsync("faster").join();
            assertThat(second.interruptAsync().join().status()).isEqualTo(TurnStatus.INTERRUPTED);

            thread.read();
            thread.setName("requirements");
            thread.archive();
            thread.unarchive();
            thread.compact();
            fake.on("thread/revert").respond(Map.of("thread", thread.info()));
            thread.revertTo(first.turnId().orElseThrow());
            CodexThread fork = thread.fork();
            client.forkThread(fork.id());
            client.listThreads().forEach(t -> { });
            thread.unsubscribe();
            client.resumeThread(thread.id());
        }

        Set<String> sent = fake.receivedMessages().stream().filter(m -> m.has("method"))
                .map(m -> m.path("method").asText()).collect(Collectors.toCollection(TreeSet::new));
        Set<String> listed = ClientApiRequirements.all().stream()
                .filter(r -> r.kind() == Kind.CLIENT_REQUEST || r.kind() == Kind.CLIENT_NOTIFICATION)
                .map(Requirement::method).collect(Collectors.toSet());
        assertThat(sent).as("methods the client API sent").isSubsetOf(listed)
                .contains("initialize", "initialized", "account/login/start", "thread/start", "turn/start",
                        "turn/steer", "turn/interrupt", "thread/revert", "thread/unsubscribe", "thread/resume");
    }

    @Test
    void everyApiMemberAnEntryNamesExists() {
        for (Requirement r : ClientApiRequirements.all()) {
            assertThat(r.usedBy()).as(r.method()).isNotEmpty();
            for (String member : r.usedBy()) {
                int dot = member.lastIndexOf('.');
                String type = "dev.codexclient." + member.substring(0, dot).replace('.', '$');
                String name = member.substring(dot + 1);
                Class<?> owner;
                try {
                    owner = Class.forName(type);
                } catch (ClassNotFoundException e) {
                    throw new AssertionError(r.method() + " names " + member + ": no type " + type, e);
                }
                assertThat(Arrays.stream(owner.getMethods()).filter(m -> Modifier.isPublic(m.getModifiers()))
                        .map(Method::getName)).as(r.method() + " names " + member).contains(name);
            }
        }
    }

    @Test
    void noMethodIsListedTwice() {
        assertThat(ClientApiRequirements.all()).extracting(r -> r.kind() + " " + r.method())
                .doesNotHaveDuplicates();
    }
}
