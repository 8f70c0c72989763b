package dev.codexclient.agent;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.protocol.CodexErrorInfo;
import dev.codexclient.protocol.TurnError;
import dev.codexclient.telemetry.TokenCounts;
import java.time.Duration;
import java.util.Optional;
import java.util.function.UnaryOperator;

/** The exception for a turn that ended {@code failed}, by its {@code codexErrorInfo}. One job: that mapping. */
final class TurnFailures {
    private TurnFailures() {
    }

    /**
     * The exception of a failed turn; its message and additional details pass through {@code mask}: codex copies
     * what the model's provider answered into both, credentials it echoed included.
     */
    static AgentRunException of(Optional<TurnError> error, String stderrTail, TokenCounts usage, boolean reported,
                                String threadId, UnaryOperator<String> mask) {
        Optional<CodexErrorInfo> info = error.map(TurnError::codexErrorInfo);
        String message = mask.apply("the turn failed: " + error.map(TurnError::message).orElse("codex gave no reason")
                + info.map(i -> " (" + describe(i) + ")").orElse(""));
        AgentRunException.Details details = new AgentRunException.Details(info,
                error.map(TurnError::additionalDetails).map(mask), mask.apply(stderrTail),
                reported ? Optional.of(usage) : Optional.empty(), Optional.of(threadId));
        FailurePhase phase = info.map(FailurePhase::of).orElse(FailurePhase.RESPONSE);
        if (phase == FailurePhase.BUDGET) {
            Optional<JsonNode> cap = info.filter(CodexErrorInfo.Unrecognized.class::isInstance)
                    .map(i -> ((CodexErrorInfo.Unrecognized) i).raw().get("modelCap"));
            if (cap.isPresent()) {
                JsonNode reset = cap.get().get("reset_after_seconds");
                return new AgentBudgetExceededException(AgentBudgetExceededException.Limit.MODEL_CAP, message,
                        reset != null && reset.canConvertToLong() ? Duration.ofSeconds(reset.asLong()) : null,
                        null, details);
            }
            return new AgentBudgetExceededException(AgentBudgetExceededException.Limit.USAGE_LIMIT, message, null,
                    null, details);
        }
        return new AgentRunException(phase, message, null, details);
    }

    private static String describe(CodexErrorInfo info) {
        if (info instanceof CodexErrorInfo.Simple s) {
            return s.asString();
        }
        if (info instanceof CodexErrorInfo.Unrecognized u) {
            // Only its name: the value may hold anything the server sent.
            return u.raw() != null && u.raw().isObject() && u.raw().fieldNames().hasNext()
                    ? u.raw().fieldNames().next() : "unrecognized";
        }
        return info.getClass().getSimpleName();
    }
}
