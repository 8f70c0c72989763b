package dev.codexclient.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.protocol.ThreadTokenUsage;
import dev.codexclient.protocol.TokenUsageBreakdown;
import dev.codexclient.telemetry.TokenCounts;
import org.junit.jupiter.api.Test;

/**
 * The run's budget on a resumed thread: codex reports the thread's running total (earlier runs included) and the
 * last model call; the run counts from its first report's total less that call, so what the thread spent before the
 * run never counts against the run's budget, and what the run spends always does.
 */
class RunTrackerTest {
    private static TokenUsageBreakdown tokens(long input, long output) {
        return new TokenUsageBreakdown(null, 0, input, output, 0, input + output);
    }

    private static ThreadTokenUsage report(TokenUsageBreakdown total, TokenUsageBreakdown last) {
        return new ThreadTokenUsage(last, 128_000L, total);
    }

    @Test
    void aResumedThreadsEarlierTokensDoNotCountAgainstTheRunsBudget() {
        RunTracker tracker = new RunTracker("run-1", TokenBudget.ofTotal(1_500));
        // The thread had spent 9,000 tokens in earlier runs; this run's first call spent 1,000.
        tracker.onUsage(report(tokens(9_500, 500), tokens(900, 100)));
        assertThat(tracker.usage()).isEqualTo(new TokenCounts(900, 0, 100, 0, 1_000));
        assertThat(tracker.threadUsage().totalTokens()).isEqualTo(10_000);
        assertThat(tracker.stop()).isNotDone();

        // A second call of 400: the run's 1,400 is still within its 1,500.
        tracker.onUsage(report(tokens(9_850, 550), tokens(350, 50)));
        assertThat(tracker.usage().totalTokens()).isEqualTo(1_400);
        assertThat(tracker.stop()).isNotDone();

        // A third call of 200 crosses it: 1,600 of the run's, whatever the thread's 10,600.
        tracker.onUsage(report(tokens(10_000, 600), tokens(150, 50)));
        assertThat(tracker.usage().totalTokens()).isEqualTo(1_600);
        assertThat(tracker.stop()).isCompletedWithValueMatching(stop ->
                stop.limit() == AgentBudgetExceededException.Limit.TOTAL_TOKENS && stop.tokenLimit() == 1_500
                        && stop.message().contains("1500"));
    }

    @Test
    void aFirstCallAloneAboveTheBudgetCrossesItOnAResumedThread() {
        RunTracker tracker = new RunTracker("run-2", TokenBudget.unlimited().withInput(500));
        tracker.onUsage(report(tokens(50_600, 2_000), tokens(600, 10)));
        assertThat(tracker.usage().inputTokens()).isEqualTo(600);
        assertThat(tracker.stop()).isCompletedWithValueMatching(stop ->
                stop.limit() == AgentBudgetExceededException.Limit.INPUT_TOKENS && stop.tokenLimit() == 500);
    }

    @Test
    void aNewThreadCountsFromZero() {
        RunTracker tracker = new RunTracker("run-3", TokenBudget.ofTotal(100));
        tracker.onUsage(report(tokens(60, 20), tokens(60, 20)));
        assertThat(tracker.usage()).isEqualTo(tracker.threadUsage());
        assertThat(tracker.stop()).isNotDone();
    }

    @Test
    void aReportWithoutTheLastCallCountsTheWholeTotalRatherThanMissingTheRunsOwn() {
        // Never seen from codex; if it happened, over-counting is the safe side of a budget.
        RunTracker tracker = new RunTracker("run-4", TokenBudget.ofTotal(100));
        tracker.onUsage(report(tokens(500, 0), null));
        assertThat(tracker.usage().totalTokens()).isEqualTo(500);
        assertThat(tracker.stop()).isDone();
    }
}
