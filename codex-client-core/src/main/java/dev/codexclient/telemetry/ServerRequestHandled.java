package dev.codexclient.telemetry;

import dev.codexclient.ApprovalDecision;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The client answered a request the server made of it, or could not.
 *
 * @param method    the JSON-RPC method, e.g. {@code item/commandExecution/requestApproval}, {@code item/tool/call}
 * @param requestId the server's JSON-RPC id for it
 * @param outcome   how it was answered
 * @param decision  for an approval answered with a decision, that decision
 * @param handling  from the request's arrival to the answer being sent
 */
public record ServerRequestHandled(String method, String requestId, ServerRequestOutcome outcome,
                                   Optional<ApprovalDecision> decision, Duration handling) {
    /**
     * Checks that every member is present.
     *
     * @param method    the JSON-RPC method, e.g. {@code item/commandExecution/requestApproval}, {@code item/tool/call}
     * @param requestId the server's JSON-RPC id for it
     * @param outcome   how it was answered
     * @param decision  for an approval answered with a decision, that decision
     * @param handling  from the request's arrival to the answer being sent
     */
    public ServerRequestHandled {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(requestId, "requestId");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(decision, "decision");
        Objects.requireNonNull(handling, "handling");
    }
}
