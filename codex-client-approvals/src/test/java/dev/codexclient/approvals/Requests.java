package dev.codexclient.approvals;

import dev.codexclient.ApprovalRequest;
import dev.codexclient.protocol.CommandExecutionRequestApprovalParams;
import dev.codexclient.protocol.FileChangeRequestApprovalParams;

/** Approval requests as codex sends them, for tests without codex. */
public final class Requests {
    private Requests() {
    }

    public static ApprovalRequest.Command command(String thread, String item, String command) {
        return new ApprovalRequest.Command(CommandExecutionRequestApprovalParams.builder()
                .threadId(thread).turnId("turn-1").itemId(item).command(command).cwd("/work/repo")
                .reason("writes outside the sandbox").startedAtMs(1).build());
    }

    public static ApprovalRequest.FileChange fileChange(String thread, String item) {
        return new ApprovalRequest.FileChange(FileChangeRequestApprovalParams.builder()
                .threadId(thread).turnId("turn-1").itemId(item).reason("apply a patch").startedAtMs(1).build());
    }
}
