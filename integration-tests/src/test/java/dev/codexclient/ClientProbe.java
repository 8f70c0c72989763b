package dev.codexclient;

import dev.codexclient.internal.time.Scheduler;

/**
 * What the tests observe inside a client that the API does not show: the clock it is built with, and counts of
 * what it holds. Test code in the client's own package, so the API needs no door for it.
 */
public final class ClientProbe {
    private ClientProbe() {
    }

    /** {@return {@code builder}, building clients on {@code scheduler}'s clock and timer} */
    public static CodexClientBuilder useScheduler(CodexClientBuilder builder, Scheduler scheduler) {
        return builder.scheduler(scheduler);
    }

    /** {@return how many threads the client holds} */
    public static int heldThreads(CodexClient client) {
        return client.runtime().diagnostics().heldThreads();
    }

    /** {@return how many delivery lanes the client has} */
    public static int lanes(CodexClient client) {
        return client.runtime().diagnostics().lanes();
    }

    /** {@return how many of the client's requests wait for an answer} */
    public static int pendingRequests(CodexClient client) {
        return client.runtime().diagnostics().pendingRequests();
    }

    /** {@return how many server requests the client is still handling} */
    public static int inflightServerRequests(CodexClient client) {
        return client.runtime().diagnostics().inflightServerRequests();
    }

    /** {@return how many secrets the client masks} */
    public static int registeredSecrets(CodexClient client) {
        return client.runtime().diagnostics().registeredSecrets();
    }

    /** {@return how many listeners the turn delivers to} */
    public static int turnListeners(CodexTurn turn) {
        return turn.listenerCount();
    }

    /** {@return how many notification listeners the client has} */
    public static int notificationListeners(CodexClient client) {
        return client.runtime().diagnostics().notificationListeners();
    }

    /** Runs {@code task} on the thread's delivery lane, behind the events queued there. */
    public static void onLane(CodexThread thread, Runnable task) {
        ((ClientThread) thread).onLane(task);
    }
}
