package dev.codexclient.internal;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.internal.time.Scheduler;

/**
 * What tests (and diagnostics) reach inside a client through: the clock a client is built with, and counts of
 * what it holds. Not part of the API: the package is not exported.
 */
public final class ClientInternals {

    /** Implemented by {@link CodexClient}, which installs it when its class initializes. */
    public interface Access {
        void useScheduler(CodexClient.Builder builder, Scheduler scheduler);

        int heldThreads(CodexClient client);

        int lanes(CodexClient client);

        int pendingRequests(CodexClient client);

        int registeredSecrets(CodexClient client);

        int turnListeners(CodexTurn turn);

        int notificationListeners(CodexClient client);

        void onLane(CodexThread thread, Runnable task);
    }

    private static volatile Access access;

    private ClientInternals() {
    }

    /** Called once, by {@link CodexClient}'s static initializer. */
    public static void install(Access a) {
        access = a;
    }

    private static Access access() {
        Access a = access;
        if (a == null) {
            // Initializing CodexClient installs it.
            CodexClient.builder();
            a = access;
        }
        return a;
    }

    /** Builds the client with this clock and timer instead of the system's (a ManualScheduler, in tests). */
    public static CodexClient.Builder useScheduler(CodexClient.Builder builder, Scheduler scheduler) {
        access().useScheduler(builder, scheduler);
        return builder;
    }

    /** How many threads the client holds routing state for. */
    public static int heldThreads(CodexClient client) {
        return access().heldThreads(client);
    }

    /** How many delivery lanes the client's connection has. */
    public static int lanes(CodexClient client) {
        return access().lanes(client);
    }

    /** How many requests await a response. */
    public static int pendingRequests(CodexClient client) {
        return access().pendingRequests(client);
    }

    /** How many secrets the client's redactor masks by their exact text. */
    public static int registeredSecrets(CodexClient client) {
        return access().registeredSecrets(client);
    }

    /** How many listeners a turn delivers to (subscriptions, event streams). */
    public static int turnListeners(CodexTurn turn) {
        return access().turnListeners(turn);
    }

    /**
     * How many listeners the client's notifications have (onNotification, notifications() subscriptions).
     *
     * @param client the client
     * @return the number of notification listeners
     */
    public static int notificationListeners(CodexClient client) {
        return access().notificationListeners(client);
    }

    /** Runs {@code task} on the thread's delivery lane, after every event queued there. */
    public static void onLane(CodexThread thread, Runnable task) {
        access().onLane(thread, task);
    }
}
