package dev.codexclient.approvals;

import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalRequest;
import dev.codexclient.protocol.CommandExecutionApprovalDecision;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A decision a person can make on an entry, by the name the REST API and the page use. Which of them an entry
 * offers depends on its request ({@link #offeredFor}): a command approval offers what codex lists in its
 * {@code availableDecisions}, a permissions request has no {@code cancel}.
 */
public enum InboxDecision {
    /** Allow this one action ({@code accept}). */
    ACCEPT("accept"),
    /** Allow this action and, for the rest of the session, others like it ({@code acceptForSession}). */
    ACCEPT_FOR_SESSION("acceptForSession"),
    /** Allow the command and the exec-policy amendment codex proposes: matching commands run without asking from
     * now on ({@code acceptWithExecpolicyAmendment}; command approvals that propose one). */
    ACCEPT_WITH_EXECPOLICY_AMENDMENT("acceptWithExecpolicyAmendment"),
    /** Refuse the action; the turn goes on without it ({@code decline}). */
    DECLINE("decline"),
    /** Refuse the action and stop the turn ({@code cancel}). */
    CANCEL("cancel");

    private final String wireName;

    InboxDecision(String wireName) {
        this.wireName = wireName;
    }

    /** {@return the name the REST API, the page and the store use, e.g. {@code acceptForSession}} */
    public String wireName() {
        return wireName;
    }

    /**
     * The decision named {@code name}: its {@link #wireName()}, or its constant's name in any case.
     *
     * @param name the name
     * @return the decision; empty for a name of none
     */
    public static Optional<InboxDecision> named(String name) {
        return Arrays.stream(values())
                .filter(d -> d.wireName.equals(name) || d.name().equalsIgnoreCase(name))
                .findFirst();
    }

    /**
     * The decisions {@code request} offers, in the order codex lists them.
     *
     * @param request the approval request
     * @return the decisions a person may make on it, never empty: decline is always among them
     */
    public static List<InboxDecision> offeredFor(ApprovalRequest request) {
        if (request instanceof ApprovalRequest.Command c) {
            List<CommandExecutionApprovalDecision> available = c.params().availableDecisions();
            if (available != null && !available.isEmpty()) {
                List<InboxDecision> offered = new ArrayList<>();
                for (CommandExecutionApprovalDecision d : available) {
                    of(d).filter(x -> !offered.contains(x)).ifPresent(offered::add);
                }
                if (!offered.contains(DECLINE)) {
                    offered.add(DECLINE);
                }
                return List.copyOf(offered);
            }
            List<String> amendment = c.params().proposedExecpolicyAmendment();
            return amendment == null || amendment.isEmpty()
                    ? List.of(ACCEPT, ACCEPT_FOR_SESSION, DECLINE, CANCEL)
                    : List.of(ACCEPT, ACCEPT_FOR_SESSION, ACCEPT_WITH_EXECPOLICY_AMENDMENT, DECLINE, CANCEL);
        }
        if (request instanceof ApprovalRequest.Permissions) {
            return List.of(ACCEPT, ACCEPT_FOR_SESSION, DECLINE);
        }
        return List.of(ACCEPT, ACCEPT_FOR_SESSION, DECLINE, CANCEL);
    }

    /** One of codex's offered command decisions; empty for one a person cannot make here (a network amendment). */
    private static Optional<InboxDecision> of(CommandExecutionApprovalDecision d) {
        if (d == CommandExecutionApprovalDecision.Simple.ACCEPT) {
            return Optional.of(ACCEPT);
        } else if (d == CommandExecutionApprovalDecision.Simple.ACCEPT_FOR_SESSION) {
            return Optional.of(ACCEPT_FOR_SESSION);
        } else if (d == CommandExecutionApprovalDecision.Simple.DECLINE) {
            return Optional.of(DECLINE);
        } else if (d == CommandExecutionApprovalDecision.Simple.CANCEL) {
            return Optional.of(CANCEL);
        } else if (d instanceof CommandExecutionApprovalDecision.AcceptWithExecpolicyAmendment) {
            return Optional.of(ACCEPT_WITH_EXECPOLICY_AMENDMENT);
        }
        return Optional.empty();
    }

    /**
     * This decision as the client sends it for {@code request}.
     *
     * @param request the request it answers
     * @return the client's decision
     */
    public ApprovalDecision toApprovalDecision(ApprovalRequest request) {
        return switch (this) {
            case ACCEPT -> ApprovalDecision.ACCEPT;
            case ACCEPT_FOR_SESSION -> ApprovalDecision.ACCEPT_FOR_SESSION;
            case DECLINE -> ApprovalDecision.DECLINE;
            case CANCEL -> ApprovalDecision.CANCEL;
            case ACCEPT_WITH_EXECPOLICY_AMENDMENT -> request instanceof ApprovalRequest.Command c
                    ? c.acceptWithProposedAmendment().orElse(ApprovalDecision.ACCEPT) : ApprovalDecision.ACCEPT;
        };
    }
}
