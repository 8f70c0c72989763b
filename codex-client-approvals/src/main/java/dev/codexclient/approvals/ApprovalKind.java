package dev.codexclient.approvals;

import dev.codexclient.ApprovalRequest;
import java.util.Arrays;
import java.util.Optional;

/** The kinds of approval codex asks for, each with the server request's method. */
public enum ApprovalKind {
    /** {@code item/commandExecution/requestApproval}: run a command. */
    COMMAND("item/commandExecution/requestApproval"),
    /** {@code item/fileChange/requestApproval}: apply a patch. */
    FILE_CHANGE("item/fileChange/requestApproval"),
    /** {@code item/permissions/requestApproval}: grant extra permissions (file system, network). */
    PERMISSIONS("item/permissions/requestApproval"),
    /** {@code execCommandApproval}: the legacy form of a command approval (older servers). */
    LEGACY_COMMAND("execCommandApproval"),
    /** {@code applyPatchApproval}: the legacy form of a file-change approval (older servers). */
    LEGACY_PATCH("applyPatchApproval");

    private final String method;

    ApprovalKind(String method) {
        this.method = method;
    }

    /** {@return the server request's method} */
    public String method() {
        return method;
    }

    /**
     * The kind of {@code request}.
     *
     * @param request the request a policy was given
     * @return its kind
     */
    public static ApprovalKind of(ApprovalRequest request) {
        if (request instanceof ApprovalRequest.Command) {
            return COMMAND;
        } else if (request instanceof ApprovalRequest.FileChange) {
            return FILE_CHANGE;
        } else if (request instanceof ApprovalRequest.Permissions) {
            return PERMISSIONS;
        } else if (request instanceof ApprovalRequest.LegacyCommand) {
            return LEGACY_COMMAND;
        }
        return LEGACY_PATCH;
    }

    /**
     * The kind named {@code name}, as {@link #name()} spells it, in any case.
     *
     * @param name the name, e.g. {@code command} or {@code FILE_CHANGE}
     * @return the kind; empty for a name of none
     */
    public static Optional<ApprovalKind> named(String name) {
        return Arrays.stream(values()).filter(k -> k.name().equalsIgnoreCase(name.replace('-', '_'))).findFirst();
    }
}
