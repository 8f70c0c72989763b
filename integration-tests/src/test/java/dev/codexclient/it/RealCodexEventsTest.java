package dev.codexclient.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.CodexClient;
import dev.codexclient.TurnResult;
import dev.codexclient.telemetry.ConnectionClosed;
import dev.codexclient.telemetry.ConnectionOpened;
import dev.codexclient.telemetry.RequestEnded;
import dev.codexclient.telemetry.ServerRequestHandled;
import dev.codexclient.telemetry.ServerRequestOutcome;
import dev.codexclient.telemetry.TurnEnded;
import dev.codexclient.telemetry.TurnStarted;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.ModelStep;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The events of a real codex turn with an approval: what the event listener sees, in order, with their contents. */
@Tag("real-codex")
@Timeout(60)
class RealCodexEventsTest {
    private static final Duration TURN = Duration.ofSeconds(30);
    @RegisterExtension
    final RealCodexFixture codex = new RealCodexFixture();

    @Test
    void aTurnWithAnApprovalIsReportedFromHandshakeToClose() {
        codex.model.enqueue(ModelStep.callTool("exec_command",
                        Map.of("cmd", "printf 'observed\\n' | tee events.txt", "login", false)),
                ModelStep.reply("done").withUsage(120, 30));
        EventListenerTest.Recorder recorder = new EventListenerTest.Recorder();
        String threadId;
        try (CodexClient client = codex.client(b -> b.telemetryListener(recorder)
                .commandApprovals(ApprovalPolicy.sync(request -> ApprovalDecision.ACCEPT)))) {
            var thread = client.startThread(codex.threadParams().build());
            threadId = thread.id();
            TurnResult result = thread.startTurn("write a file").await(TURN);
            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
        }

        List<String> seen = recorder.events().stream().map(EventListenerTest.Recorder::describe).toList();
        assertThat(seen).containsSubsequence(
                "requestStarted initialize", "requestEnded initialize SUCCEEDED", "connectionOpened stdio",
                "requestStarted thread/start", "requestEnded thread/start SUCCEEDED",
                "requestStarted turn/start", "requestEnded turn/start SUCCEEDED",
                "turnStarted", "turnEnded completed", "connectionClosed byUser");
        assertThat(seen).containsSubsequence(
                "serverRequestHandled item/commandExecution/requestApproval ANSWERED", "turnEnded completed");
        assertThat(seen.get(seen.size() - 1)).isEqualTo("connectionClosed byUser");
        assertThat(recorder.all(RequestEnded.class)).allSatisfy(e -> assertThat(e.attempts()).isEqualTo(1));

        ConnectionOpened opened = recorder.last(ConnectionOpened.class, e -> true);
        assertThat(opened.transport()).isEqualTo(dev.codexclient.transport.TransportKind.STDIO);
        assertThat(opened.serverInfo().userAgent()).hasValueSatisfying(a -> assertThat(a).contains("codex"));
        assertThat(opened.handshake()).isPositive();

        ServerRequestHandled approval = recorder.last(ServerRequestHandled.class,
                e -> e.method().equals("item/commandExecution/requestApproval"));
        assertThat(approval.outcome()).isEqualTo(ServerRequestOutcome.ANSWERED);
        assertThat(approval.decision()).contains(ApprovalDecision.ACCEPT);

        TurnStarted started = recorder.last(TurnStarted.class, e -> true);
        assertThat(started.threadId()).isEqualTo(threadId);
        TurnEnded ended = recorder.last(TurnEnded.class, e -> true);
        assertThat(ended.started()).isSameAs(started);
        assertThat(ended.error()).isEmpty();
        assertThat(ended.duration()).isPositive();
        assertThat(ended.tokenUsage()).isPresent();
        // Two model calls (the command, then the reply): the turn's own tokens cover at least the reply's.
        assertThat(ended.turnTokens()).hasValueSatisfying(t -> assertThat(t.outputTokens()).isGreaterThanOrEqualTo(30));
        assertThat(recorder.last(ConnectionClosed.class, e -> true).closedByUser()).isTrue();
    }
}
