package dev.codexclient.agent;

import dev.codexclient.telemetry.TokenCounts;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a successful run produced. {@link #toString()} names the thread and counts, never the text or the output:
 * they hold what the model wrote, which may quote what it was shown.
 *
 * @param threadId    the thread the run used
 * @param resumed     whether a stored thread was resumed (false: a new one was started)
 * @param text        the final message's text
 * @param output      the final message parsed into the run's output type; empty for a run without one
 * @param usage       the tokens the run spent (every model call of its turn), in the shape of the client's turn
 *                    telemetry ({@code TurnEnded.turnTokens})
 * @param threadUsage the thread's tokens in all, earlier runs on it included
 * @param invocations the tools the model used, in the order they ended
 * @param <T>         the output type
 */
public record AgentResult<T>(String threadId, boolean resumed, String text, Optional<T> output,
                             TokenCounts usage, TokenCounts threadUsage, List<ToolInvocation> invocations) {
    /**
     * Checks every member is present and copies the list.
     *
     * @param threadId    the thread the run used
     * @param resumed     whether a stored thread was resumed
     * @param text        the final message's text
     * @param output      the parsed output, when the run has an output type
     * @param usage       the tokens the run spent
     * @param threadUsage the thread's tokens in all
     * @param invocations the tools the model used
     */
    public AgentResult {
        Objects.requireNonNull(threadId, "threadId");
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(output, "output");
        Objects.requireNonNull(usage, "usage");
        Objects.requireNonNull(threadUsage, "threadUsage");
        invocations = List.copyOf(invocations);
    }

    @Override
    public String toString() {
        return "AgentResult[threadId=" + threadId + ", resumed=" + resumed + ", text=" + text.length() + " chars, "
                + "output=" + (output.isPresent() ? "present" : "none") + ", usage=" + usage + ", threadUsage="
                + threadUsage + ", invocations=" + invocations.size() + "]";
    }
}
