package dev.codexclient.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.protocol.ProtocolJson;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.ModelStep;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the one decode path makes of a real codex turn: every notification of the schema arrives as its typed
 * variant, and the thread and turn it is routed by are the ones its own members name.
 */
@Tag("real-codex")
@Timeout(60)
class RealCodexDecodeTest {
    private static final Duration TURN = Duration.ofSeconds(30);
    @RegisterExtension
    final RealCodexFixture codex = new RealCodexFixture();

    @Test
    void everyNotificationOfARealTurnIsTypedAndRoutedByItsOwnMembers() {
        codex.model.enqueue(ModelStep.callTool("exec_command",
                        Map.of("cmd", "printf 'decoded\\n' | tee decode.txt", "login", false)),
                ModelStep.reply("all done"));
        List<ServerNotification> all = new CopyOnWriteArrayList<>();
        List<ServerNotification> onThread = new CopyOnWriteArrayList<>();
        String threadId;
        String turnId;
        try (CodexClient client = codex.client(b -> b.onNotification(all::add)
                .commandApprovals(ApprovalPolicy.sync(request -> ApprovalDecision.ACCEPT)))) {
            CodexThread thread = client.startThread(codex.threadParams().build());
            threadId = thread.id();
            thread.onEvent(onThread::add);
            CodexTurn turn = thread.startTurn("write a file");
            turnId = turn.id();
            assertThat(turn.await(TURN).status()).isEqualTo(TurnStatus.COMPLETED);
        }

        List<ServerNotification> schema = all.stream().filter(n -> !n.method().startsWith("codex/event/")).toList();
        assertThat(schema).isNotEmpty().noneMatch(n -> n instanceof ServerNotification.Unrecognized);
        assertThat(schema).extracting(ServerNotification::method)
                .contains("turn/started", "item/started", "item/agentMessage/delta", "turn/completed");
        for (ServerNotification n : schema) {
            // The same rule read from the notification written back as JSON: the generated accessors agree.
            JsonNode params = ProtocolJson.mapper().valueToTree(n).path("params");
            assertThat(n.threadId()).as("threadId of %s", n.method()).isEqualTo(route(params, "threadId", "thread"));
            assertThat(n.turnId()).as("turnId of %s", n.method()).isEqualTo(route(params, "turnId", "turn"));
        }
        assertThat(schema).filteredOn(n -> n.method().startsWith("item/") || n.method().startsWith("turn/"))
                .allSatisfy(n -> assertThat(n.threadId()).hasValue(threadId));
        assertThat(schema).filteredOn(n -> n.method().startsWith("item/") || n.method().startsWith("turn/"))
                .allSatisfy(n -> assertThat(n.turnId()).hasValue(turnId));
        // From its listener on, the thread got every notification that names it, in the order they came.
        List<ServerNotification> named = all.stream().filter(n -> n.threadId().equals(Optional.of(threadId))).toList();
        assertThat(onThread).isNotEmpty().last().extracting(ServerNotification::method).isEqualTo("turn/completed");
        assertThat(named.subList(named.size() - onThread.size(), named.size())).containsExactlyElementsOf(onThread);
    }

    private static Optional<String> route(JsonNode params, String member, String object) {
        if (params.path(member).isTextual()) {
            return Optional.of(params.path(member).textValue());
        }
        JsonNode id = params.path(object).path("id");
        return id.isTextual() ? Optional.of(id.textValue()) : Optional.empty();
    }
}
