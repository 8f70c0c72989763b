package dev.codexclient.agent;

import dev.codexclient.telemetry.ExtensionTelemetry;
import dev.codexclient.telemetry.TokenCounts;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The telemetry of agent runs, published through the run's client to its
 * {@link dev.codexclient.telemetry.CodexTelemetryListener listener}
 * ({@link dev.codexclient.telemetry.CodexTelemetryListener#extensionTelemetry extensionTelemetry}), in order with the
 * client's own records. Like those, they carry ids, names, outcomes, durations and token counts, never prompts,
 * arguments, output or secrets.
 *
 * <pre>{@code
 * CodexTelemetryListener audit = new CodexTelemetryListener() {
 *     public void extensionTelemetry(ExtensionTelemetry report) {
 *         if (report instanceof AgentRunTelemetry.Completed done) {
 *             log.info("run {} used {} tokens", done.runId(), done.usage().totalTokens());
 *         }
 *     }
 * };
 * }</pre>
 */
public sealed interface AgentRunTelemetry extends ExtensionTelemetry {
    /** The {@link #source()} of every agent run event. */
    String SOURCE = "agent";

    /**
     * The run's id, unique within the JVM; ties a run's events together.
     *
     * @return the id
     */
    String runId();

    @Override
    default String source() {
        return SOURCE;
    }

    /**
     * A run started: its thread was started or resumed, its turn is about to start.
     *
     * @param runId    the run's id
     * @param threadId the thread
     * @param resumed  whether a stored thread was resumed
     */
    record Started(String runId, String threadId, boolean resumed) implements AgentRunTelemetry {
        /**
         * Checks every member is present.
         *
         * @param runId    the run's id
         * @param threadId the thread
         * @param resumed  whether a stored thread was resumed
         */
        public Started {
            Objects.requireNonNull(runId, "runId");
            Objects.requireNonNull(threadId, "threadId");
        }
    }

    /**
     * The model used a tool, and the use ended.
     *
     * @param runId    the run's id
     * @param kind     what kind of tool
     * @param name     the dynamic or MCP tool's name; for a command or a file change, its kind's name
     * @param outcome  how it ended
     * @param duration how long it took
     */
    record ToolInvoked(String runId, ToolInvocation.Kind kind, String name, ToolInvocation.Outcome outcome,
                       Duration duration) implements AgentRunTelemetry {
        /**
         * Checks every member is present.
         *
         * @param runId    the run's id
         * @param kind     what kind of tool
         * @param name     the tool's name, or its kind's name
         * @param outcome  how it ended
         * @param duration how long it took
         */
        public ToolInvoked {
            Objects.requireNonNull(runId, "runId");
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(outcome, "outcome");
            Objects.requireNonNull(duration, "duration");
        }
    }

    /**
     * A run ended, successfully or not.
     *
     * @param runId    the run's id
     * @param threadId the thread, when one was started or resumed
     * @param usage    the tokens the run spent (all zero when codex reported none)
     * @param duration from the run's start to its end
     * @param failure  where it failed, when it did
     */
    record Completed(String runId, Optional<String> threadId, TokenCounts usage, Duration duration,
                     Optional<FailurePhase> failure) implements AgentRunTelemetry {
        /**
         * Checks every member is present.
         *
         * @param runId    the run's id
         * @param threadId the thread, when one was started or resumed
         * @param usage    the tokens the run spent
         * @param duration from the run's start to its end
         * @param failure  where it failed, when it did
         */
        public Completed {
            Objects.requireNonNull(runId, "runId");
            Objects.requireNonNull(threadId, "threadId");
            Objects.requireNonNull(usage, "usage");
            Objects.requireNonNull(duration, "duration");
            Objects.requireNonNull(failure, "failure");
        }
    }
}
