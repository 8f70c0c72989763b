package dev.codexclient.internal.session;

import dev.codexclient.RestartPolicy;
import dev.codexclient.internal.time.Scheduler;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The restart policy's budget: at most {@link RestartPolicy#budget()} attempts within any
 * {@link RestartPolicy#budgetWindow()}, counted over every restart of the client, so that a server that dies again
 * right after each restart is not restarted for ever.
 */
final class RestartBudget {
    private final RestartPolicy policy;
    private final Scheduler scheduler;
    /** The start of each attempt within the budget window, oldest first. Guarded by itself. */
    private final Deque<Long> attemptTimes = new ArrayDeque<>();

    RestartBudget(RestartPolicy policy, Scheduler scheduler) {
        this.policy = policy;
        this.scheduler = scheduler;
    }

    /** Counts an attempt against the budget; false, counting nothing, when the budget of the window is spent. */
    boolean take() {
        long now = scheduler.nanoTime();
        long window = Scheduler.saturatedNanos(policy.budgetWindow());
        synchronized (attemptTimes) {
            while (!attemptTimes.isEmpty() && now - attemptTimes.peekFirst() >= window) {
                attemptTimes.pollFirst();
            }
            if (attemptTimes.size() >= policy.budget()) {
                return false;
            }
            attemptTimes.addLast(now);
            return true;
        }
    }

    /** {@return the budget, for the message of a restart given up on} */
    String describe() {
        return policy.budget() + " attempts in " + policy.budgetWindow();
    }
}
