package dev.codexclient;

import dev.codexclient.protocol.ApplyPatchApprovalParams;
import dev.codexclient.protocol.CommandExecutionRequestApprovalParams;
import dev.codexclient.protocol.ExecCommandApprovalParams;
import dev.codexclient.protocol.FileChangeRequestApprovalParams;
import dev.codexclient.protocol.PermissionsRequestApprovalParams;

/**
 * An approval the server asks for, whatever its kind, as seen by an {@link ApprovalPolicy}. Each variant carries
 * the typed params of its server request.
 */
public sealed interface ApprovalRequest {

    /** {@code item/commandExecution/requestApproval}: run a command. */
    record Command(CommandExecutionRequestApprovalParams params) implements ApprovalRequest {
    }

    /** {@code item/fileChange/requestApproval}: apply a patch. */
    record FileChange(FileChangeRequestApprovalParams params) implements ApprovalRequest {
    }

    /** {@code item/permissions/requestApproval}: grant extra permissions (file system, network). */
    record Permissions(PermissionsRequestApprovalParams params) implements ApprovalRequest {
    }

    /** {@code execCommandApproval}: the legacy form of a command approval. */
    record LegacyCommand(ExecCommandApprovalParams params) implements ApprovalRequest {
    }

    /** {@code applyPatchApproval}: the legacy form of a file-change approval. */
    record LegacyPatch(ApplyPatchApprovalParams params) implements ApprovalRequest {
    }
}
