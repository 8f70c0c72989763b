package dev.codexclient;

import dev.codexclient.protocol.CommandExecutionApprovalDecision;
import dev.codexclient.protocol.FileChangeApprovalDecision;
import dev.codexclient.protocol.PermissionsRequestApprovalResponse;
import dev.codexclient.protocol.ReviewDecision;
import java.util.Objects;

/**
 * A decision on an approval request, in one vocabulary whatever the kind of approval: {@link #ACCEPT},
 * {@link #ACCEPT_FOR_SESSION}, {@link #DECLINE} and {@link #CANCEL}. The client writes each as the wire value of
 * the request it answers:
 *
 * <table>
 *   <caption>Wire value of each decision, by kind of request</caption>
 *   <tr><th></th><th>command, file change</th><th>legacy command, legacy patch</th><th>permissions</th></tr>
 *   <tr><td>{@code ACCEPT}</td><td>{@code accept}</td><td>{@code approved}</td>
 *       <td>what was requested, for the turn</td></tr>
 *   <tr><td>{@code ACCEPT_FOR_SESSION}</td><td>{@code acceptForSession}</td><td>{@code approved_for_session}</td>
 *       <td>what was requested, for the session</td></tr>
 *   <tr><td>{@code DECLINE}</td><td>{@code decline}</td><td>{@code denied}</td><td>nothing</td></tr>
 *   <tr><td>{@code CANCEL}</td><td>{@code cancel}</td><td>{@code abort}</td><td>nothing</td></tr>
 * </table>
 *
 * <p>The rare decision beyond these four is made from the protocol's own type with {@code of(...)}: accepting a
 * command together with the exec-policy amendment codex proposed (see
 * {@link ApprovalRequest.Command#acceptWithProposedAmendment()}), a legacy decision such as a denial with a
 * reason, or a partial permission grant. Such a decision answers requests of its own kind only; given to another
 * kind, the request is answered with a JSON-RPC error. A protocol value that is one of the four common decisions
 * becomes that decision ({@code of(FileChangeApprovalDecision.ACCEPT) == ApprovalDecision.ACCEPT}), so there is one
 * spelling for each.
 *
 * <pre>{@code
 * ApprovalDecision d = command.acceptWithProposedAmendment().orElse(ApprovalDecision.ACCEPT);
 * }</pre>
 *
 * <p>The type is sealed: code that must tell the kinds apart switches over {@link Common} (whose constants are the
 * four above) and the protocol-valued records.
 */
public sealed interface ApprovalDecision permits ApprovalDecision.Common, ApprovalDecision.Command,
        ApprovalDecision.FileChange, ApprovalDecision.Legacy, ApprovalDecision.Permissions {

    /** Allow this one action. */
    ApprovalDecision ACCEPT = Common.ACCEPT;
    /** Allow this action and, for the rest of the session, others like it. */
    ApprovalDecision ACCEPT_FOR_SESSION = Common.ACCEPT_FOR_SESSION;
    /** Refuse the action; the turn goes on without it. */
    ApprovalDecision DECLINE = Common.DECLINE;
    /** Refuse the action and stop the turn. */
    ApprovalDecision CANCEL = Common.CANCEL;

    /**
     * A command-approval decision of the protocol, e.g. {@code AcceptWithExecpolicyAmendment}, or one from a
     * newer server's {@code availableDecisions}; the four common ones become {@link #ACCEPT},
     * {@link #ACCEPT_FOR_SESSION}, {@link #DECLINE} and {@link #CANCEL}.
     *
     * @param decision the protocol's decision
     * @return the decision, which answers command approvals only unless it is one of the four common ones
     */
    static ApprovalDecision of(CommandExecutionApprovalDecision decision) {
        Objects.requireNonNull(decision, "decision");
        if (decision == CommandExecutionApprovalDecision.Simple.ACCEPT) {
            return ACCEPT;
        } else if (decision == CommandExecutionApprovalDecision.Simple.ACCEPT_FOR_SESSION) {
            return ACCEPT_FOR_SESSION;
        } else if (decision == CommandExecutionApprovalDecision.Simple.DECLINE) {
            return DECLINE;
        } else if (decision == CommandExecutionApprovalDecision.Simple.CANCEL) {
            return CANCEL;
        }
        return new Command(decision);
    }

    /**
     * A file-change decision of the protocol: as of the pinned schema, always one of the four common decisions,
     * which it becomes.
     *
     * @param decision the protocol's decision
     * @return the decision
     */
    static ApprovalDecision of(FileChangeApprovalDecision decision) {
        Objects.requireNonNull(decision, "decision");
        if (decision == FileChangeApprovalDecision.ACCEPT) {
            return ACCEPT;
        } else if (decision == FileChangeApprovalDecision.ACCEPT_FOR_SESSION) {
            return ACCEPT_FOR_SESSION;
        } else if (decision == FileChangeApprovalDecision.DECLINE) {
            return DECLINE;
        } else if (decision == FileChangeApprovalDecision.CANCEL) {
            return CANCEL;
        }
        return new FileChange(decision);
    }

    /**
     * A decision of the legacy approvals ({@code execCommandApproval}, {@code applyPatchApproval}), e.g. a
     * {@code Denied} with a reason for the model; {@code approved}, {@code approved_for_session} and {@code abort}
     * become {@link #ACCEPT}, {@link #ACCEPT_FOR_SESSION} and {@link #CANCEL}.
     *
     * @param decision the protocol's decision
     * @return the decision, which answers legacy approvals only unless it is one of the common ones
     */
    static ApprovalDecision of(ReviewDecision decision) {
        Objects.requireNonNull(decision, "decision");
        if (decision == ReviewDecision.Simple.APPROVED) {
            return ACCEPT;
        } else if (decision == ReviewDecision.Simple.APPROVED_FOR_SESSION) {
            return ACCEPT_FOR_SESSION;
        } else if (decision == ReviewDecision.Simple.ABORT) {
            return CANCEL;
        }
        return new Legacy(decision);
    }

    /**
     * The exact answer to a permissions request: a grant of part of what was asked, or with other options.
     *
     * @param grant the protocol's response: the permissions granted and their scope
     * @return the decision, which answers permission requests only
     */
    static ApprovalDecision of(PermissionsRequestApprovalResponse grant) {
        return new Permissions(grant);
    }

    /**
     * The four decisions every kind of approval understands: {@link ApprovalDecision#ACCEPT} and the others are its
     * constants, the same objects under a shorter name.
     */
    enum Common implements ApprovalDecision {
        /** Allow this one action. */
        ACCEPT,
        /** Allow this action and, for the rest of the session, others like it. */
        ACCEPT_FOR_SESSION,
        /** Refuse the action; the turn goes on without it. */
        DECLINE,
        /** Refuse the action and stop the turn. */
        CANCEL
    }

    /**
     * A command-approval decision beyond the four common ones, sent as it is. Answers command approvals only.
     *
     * @param decision the protocol's decision
     */
    record Command(CommandExecutionApprovalDecision decision) implements ApprovalDecision {
        /**
         * Checks the decision is present.
         *
         * @param decision the protocol's decision
         */
        public Command {
            Objects.requireNonNull(decision, "decision");
        }
    }

    /**
     * A file-change decision beyond the four common ones (none exists in the pinned schema), sent as it is.
     * Answers file-change approvals only.
     *
     * @param decision the protocol's decision
     */
    record FileChange(FileChangeApprovalDecision decision) implements ApprovalDecision {
        /**
         * Checks the decision is present.
         *
         * @param decision the protocol's decision
         */
        public FileChange {
            Objects.requireNonNull(decision, "decision");
        }
    }

    /**
     * A legacy decision beyond the four common ones, sent as it is. Answers the legacy approvals only.
     *
     * @param decision the protocol's decision
     */
    record Legacy(ReviewDecision decision) implements ApprovalDecision {
        /**
         * Checks the decision is present.
         *
         * @param decision the protocol's decision
         */
        public Legacy {
            Objects.requireNonNull(decision, "decision");
        }
    }

    /**
     * An answer to a permissions request, sent as it is. Answers permission requests only.
     *
     * @param grant the protocol's response: the permissions granted and their scope
     */
    record Permissions(PermissionsRequestApprovalResponse grant) implements ApprovalDecision {
        /**
         * Checks the grant is present.
         *
         * @param grant the protocol's response
         */
        public Permissions {
            Objects.requireNonNull(grant, "grant");
        }
    }
}
