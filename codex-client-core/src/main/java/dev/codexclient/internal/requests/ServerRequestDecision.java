package dev.codexclient.internal.requests;

import dev.codexclient.ApprovalDecision;
import dev.codexclient.telemetry.ServerRequestOutcome;
import dev.codexclient.internal.rpc.ServerRequestAnswer;
import java.util.Optional;

/**
 * What the {@link ServerRequestRouter} decided for one server request: who answered it, with what, and the
 * approval decision when it was an approval. The reply is made from it, and the telemetry reads it as it is.
 *
 * @param result   the reply's result when answered (null: an empty result)
 * @param error    the failure the request is answered with, as a JSON-RPC error; null when answered with a result
 * @param outcome  {@link ServerRequestOutcome#ANSWERED} by the user's handler or policy,
 *                 {@link ServerRequestOutcome#DEFAULTED} by the client's default,
 *                 {@link ServerRequestOutcome#FAILED} when the user's handler failed
 * @param approval the approval decision the answer carries; empty for any other answer
 */
public record ServerRequestDecision(Object result, Throwable error, ServerRequestOutcome outcome,
                                    Optional<ApprovalDecision> approval) implements ServerRequestAnswer {
}
