package dev.codexclient;

import dev.codexclient.protocol.ApplyPatchApprovalParams;
import dev.codexclient.protocol.CommandExecutionApprovalDecision;
import dev.codexclient.protocol.CommandExecutionRequestApprovalParams;
import dev.codexclient.protocol.ExecCommandApprovalParams;
import dev.codexclient.protocol.FileChangeRequestApprovalParams;
import dev.codexclient.protocol.PermissionsRequestApprovalParams;
import dev.codexclient.protocol.ServerRequestMethods;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * An approval the server asks for, whatever its kind, as an {@link ApprovalPolicy} sees it. Each variant carries the
 * typed params of its server request; every kind is answered with an {@link ApprovalDecision}.
 */
public sealed interface ApprovalRequest {

    /** {@return the server request's method, e.g. {@code item/commandExecution/requestApproval}} */
    String method();

    /**
     * {@return the id of the codex thread the approval is for} codex names it in every approval ({@code threadId}, or
     * {@code conversationId} in the legacy kinds); empty only when a server left it out.
     */
    Optional<String> threadId();

    /**
     * {@code item/commandExecution/requestApproval}: run a command.
     *
     * @param params the request as codex sent it: the command, its working directory, the reason, the decisions
     *               codex offers ({@code availableDecisions}) and any exec-policy amendment it proposes
     */
    record Command(CommandExecutionRequestApprovalParams params) implements ApprovalRequest {
        /**
         * Checks the params are present.
         *
         * @param params the request as codex sent it
         */
        public Command {
            Objects.requireNonNull(params, "params");
        }

        @Override
        public String method() {
            return ServerRequestMethods.ITEM_COMMAND_EXECUTION_REQUEST_APPROVAL.method();
        }

        @Override
        public Optional<String> threadId() {
            return Optional.ofNullable(params.threadId());
        }

        /**
         * {@return accepting the command together with the exec-policy amendment codex proposes; empty when codex
         * proposes none} With it, matching commands run without asking from now on. Taken from the offered decisions
         * ({@code availableDecisions}) when codex lists it there, else built from {@code proposedExecpolicyAmendment}.
         */
        public Optional<ApprovalDecision> acceptWithProposedAmendment() {
            List<CommandExecutionApprovalDecision> offered = params.availableDecisions();
            if (offered != null) {
                for (CommandExecutionApprovalDecision d : offered) {
                    if (d instanceof CommandExecutionApprovalDecision.AcceptWithExecpolicyAmendment) {
                        return Optional.of(ApprovalDecision.of(d));
                    }
                }
            }
            List<String> proposed = params.proposedExecpolicyAmendment();
            if (proposed == null || proposed.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(ApprovalDecision.of(
                    new CommandExecutionApprovalDecision.AcceptWithExecpolicyAmendment(List.copyOf(proposed))));
        }
    }

    /**
     * {@code item/fileChange/requestApproval}: apply a patch.
     *
     * @param params the request as codex sent it
     */
    record FileChange(FileChangeRequestApprovalParams params) implements ApprovalRequest {
        /**
         * Checks the params are present.
         *
         * @param params the request as codex sent it
         */
        public FileChange {
            Objects.requireNonNull(params, "params");
        }

        @Override
        public String method() {
            return ServerRequestMethods.ITEM_FILE_CHANGE_REQUEST_APPROVAL.method();
        }

        @Override
        public Optional<String> threadId() {
            return Optional.ofNullable(params.threadId());
        }
    }

    /**
     * {@code item/permissions/requestApproval}: grant extra permissions (file system, network). Accepting grants
     * what was requested; declining grants nothing.
     *
     * @param params the request as codex sent it
     */
    record Permissions(PermissionsRequestApprovalParams params) implements ApprovalRequest {
        /**
         * Checks the params are present.
         *
         * @param params the request as codex sent it
         */
        public Permissions {
            Objects.requireNonNull(params, "params");
        }

        @Override
        public String method() {
            return ServerRequestMethods.ITEM_PERMISSIONS_REQUEST_APPROVAL.method();
        }

        @Override
        public Optional<String> threadId() {
            return Optional.ofNullable(params.threadId());
        }
    }

    /**
     * {@code execCommandApproval}: the legacy form of a command approval.
     *
     * @param params the request as codex sent it
     */
    record LegacyCommand(ExecCommandApprovalParams params) implements ApprovalRequest {
        /**
         * Checks the params are present.
         *
         * @param params the request as codex sent it
         */
        public LegacyCommand {
            Objects.requireNonNull(params, "params");
        }

        @Override
        public String method() {
            return ServerRequestMethods.EXEC_COMMAND_APPROVAL.method();
        }

        @Override
        public Optional<String> threadId() {
            return Optional.ofNullable(params.conversationId());
        }
    }

    /**
     * {@code applyPatchApproval}: the legacy form of a file-change approval.
     *
     * @param params the request as codex sent it
     */
    record LegacyPatch(ApplyPatchApprovalParams params) implements ApprovalRequest {
        /**
         * Checks the params are present.
         *
         * @param params the request as codex sent it
         */
        public LegacyPatch {
            Objects.requireNonNull(params, "params");
        }

        @Override
        public String method() {
            return ServerRequestMethods.APPLY_PATCH_APPROVAL.method();
        }

        @Override
        public Optional<String> threadId() {
            return Optional.ofNullable(params.conversationId());
        }
    }
}
