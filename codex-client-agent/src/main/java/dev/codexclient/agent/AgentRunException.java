package dev.codexclient.agent;

import dev.codexclient.errors.CodexException;
import dev.codexclient.protocol.CodexErrorInfo;
import dev.codexclient.telemetry.TokenCounts;
import java.util.Objects;
import java.util.Optional;

/**
 * A run failed. {@link #phase()} says where; a failed turn's typed {@link #codexErrorInfo()} and
 * {@link #additionalDetails()} are kept, the server's last stderr lines are in {@link #stderrTail()} (bounded,
 * secrets masked), and {@link #usage()} holds the tokens spent until then. The cause, when there is one, is the
 * client's exception (or the tool's, for {@link FailurePhase#TOOL}).
 */
public class AgentRunException extends CodexException {
    private static final long serialVersionUID = 1L;

    /** How much of the server's stderr an exception keeps, in characters: its end. */
    public static final int STDERR_TAIL_CHARS = 8 * 1024;

    /** Where the run failed. */
    private final FailurePhase phase;
    /** The failed turn's error info; null when none. */
    private final transient CodexErrorInfo codexErrorInfo;
    /** The failed turn's additional details; null when none. */
    private final String additionalDetails;
    /** The end of the server's stderr, masked. */
    private final String stderrTail;
    /** The usage until the failure; null when none was reported. */
    private final transient TokenCounts usage;
    /** The run's thread; null before one was opened. */
    private final String threadId;

    /**
     * A failure.
     *
     * @param phase             where the run failed
     * @param message           what happened
     * @param cause             the failure behind it, or null
     * @param details           the failed turn's error info and details, the stderr tail, usage and thread
     */
    public AgentRunException(FailurePhase phase, String message, Throwable cause, Details details) {
        super(message, cause);
        this.phase = Objects.requireNonNull(phase, "phase");
        Objects.requireNonNull(details, "details");
        this.codexErrorInfo = details.codexErrorInfo().orElse(null);
        this.additionalDetails = details.additionalDetails().orElse(null);
        String tail = details.stderrTail();
        this.stderrTail = tail.length() > STDERR_TAIL_CHARS ? tail.substring(tail.length() - STDERR_TAIL_CHARS) : tail;
        this.usage = details.usage().orElse(null);
        this.threadId = details.threadId().orElse(null);
    }

    /**
     * What a failure carries besides its phase and message.
     *
     * @param codexErrorInfo    the failed turn's typed error info
     * @param additionalDetails the failed turn's additional details
     * @param stderrTail        the server's last stderr output, secrets masked; empty when none
     * @param usage             the run's tokens until the failure, when any were reported
     * @param threadId          the run's thread, when one was started or resumed
     */
    public record Details(Optional<CodexErrorInfo> codexErrorInfo, Optional<String> additionalDetails,
                          String stderrTail, Optional<TokenCounts> usage, Optional<String> threadId) {
        /** Nothing known. */
        public static final Details NONE = new Details(Optional.empty(), Optional.empty(), "", Optional.empty(),
                Optional.empty());

        /**
         * Checks every member is present.
         *
         * @param codexErrorInfo    the failed turn's typed error info
         * @param additionalDetails the failed turn's additional details
         * @param stderrTail        the server's last stderr output, secrets masked; empty when none
         * @param usage             the run's tokens until the failure, when any were reported
         * @param threadId          the run's thread, when one was started or resumed
         */
        public Details {
            Objects.requireNonNull(codexErrorInfo, "codexErrorInfo");
            Objects.requireNonNull(additionalDetails, "additionalDetails");
            Objects.requireNonNull(stderrTail, "stderrTail");
            Objects.requireNonNull(usage, "usage");
            Objects.requireNonNull(threadId, "threadId");
        }
    }

    /**
     * Where the run failed.
     *
     * @return the phase
     */
    public FailurePhase phase() {
        return phase;
    }

    /**
     * The failed turn's typed error info, as codex sent it (an unknown one kept raw).
     *
     * @return the info, when the turn failed with one
     */
    public Optional<CodexErrorInfo> codexErrorInfo() {
        return Optional.ofNullable(codexErrorInfo);
    }

    /**
     * The failed turn's additional details.
     *
     * @return the details, when codex sent them
     */
    public Optional<String> additionalDetails() {
        return Optional.ofNullable(additionalDetails);
    }

    /**
     * The end of what the server wrote to stderr, at most {@link #STDERR_TAIL_CHARS} characters, secrets masked.
     *
     * @return the text; empty when there was none
     */
    public String stderrTail() {
        return stderrTail;
    }

    /**
     * The tokens the run spent until it failed.
     *
     * @return the usage, when codex reported any
     */
    public Optional<TokenCounts> usage() {
        return Optional.ofNullable(usage);
    }

    /**
     * The run's thread.
     *
     * @return its id, when one was started or resumed before the failure
     */
    public Optional<String> threadId() {
        return Optional.ofNullable(threadId);
    }
}
