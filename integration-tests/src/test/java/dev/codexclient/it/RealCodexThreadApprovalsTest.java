package dev.codexclient.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.ApprovalRequest;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.ThreadOptions;
import dev.codexclient.TurnResult;
import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.ModelStep;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A thread's own approval policy against the real codex: two threads of one client ask to change a file, the thread
 * with a policy of its own gets its change applied, the other is declined by the client's policy.
 */
@Tag("real-codex")
@Timeout(90)
class RealCodexThreadApprovalsTest {
    private static final Duration TURN = Duration.ofSeconds(30);
    @RegisterExtension
    final RealCodexFixture codex = new RealCodexFixture();

    @Test
    void theThreadWithItsOwnPolicyHasItsPatchAppliedAndTheOtherIsDeclined() {
        // A stateless script: after the patch the model gets its outcome, and any reply ends the turn.
        codex.model.whenAlways(r -> !r.functionCallOutputs().isEmpty(), ModelStep.reply("done"));
        codex.model.whenAlways(r -> r.lastUserText().equals("write mine"),
                ModelStep.applyPatch(ModelStep.addFilePatch("mine.txt", "accepted by the thread\n")));
        codex.model.whenAlways(r -> r.lastUserText().equals("write theirs"),
                ModelStep.applyPatch(ModelStep.addFilePatch("theirs.txt", "declined by the client\n")));
        List<String> clientAsked = new CopyOnWriteArrayList<>();
        List<String> threadAsked = new CopyOnWriteArrayList<>();
        try (CodexClient client = codex.client(b -> b.approvals(ApprovalPolicy.sync(r -> {
            clientAsked.add(r.threadId().orElse("?"));
            return ApprovalDecision.DECLINE;
        })))) {
            CodexThread own = client.startThread(codex.threadParams().build(), ThreadOptions.builder()
                    .approvals(ApprovalPolicy.sync((ApprovalRequest r) -> {
                        threadAsked.add(r.threadId().orElse("?"));
                        return ApprovalDecision.ACCEPT;
                    })).build());
            CodexThread other = client.startThread(codex.threadParams().build());

            TurnResult mine = own.startTurn("write mine").await(TURN);
            TurnResult theirs = other.startTurn("write theirs").await(TURN);

            assertThat(mine.status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(mine.itemsOf(ThreadItem.FileChange.class)).isNotEmpty();
            assertThat(codex.workspace.resolve("mine.txt")).hasContent("accepted by the thread");
            assertThat(theirs.status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(codex.workspace.resolve("theirs.txt")).doesNotExist();
            assertThat(threadAsked).isNotEmpty().containsOnly(own.id());
            assertThat(clientAsked).isNotEmpty().containsOnly(other.id());
        }
    }
}
