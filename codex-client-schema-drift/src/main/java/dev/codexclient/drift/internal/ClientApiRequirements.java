package dev.codexclient.drift.internal;

import dev.codexclient.protocol.ClientNotificationMethods;
import dev.codexclient.protocol.ClientRequestMethods;
import dev.codexclient.protocol.MethodDescriptor;
import dev.codexclient.protocol.NotificationDescriptor;
import dev.codexclient.protocol.ServerNotificationMethods;
import dev.codexclient.protocol.ServerRequestMethods;
import java.util.ArrayList;
import java.util.List;

/**
 * The protocol methods the hand-written client API ({@code CodexClient}, {@code CodexThread}, {@code CodexTurn}
 * and the builder's handlers) relies on, each with the API members that stop working without it. A codex that
 * lacks one of them is reported by the drift report as incompatible.
 *
 * <p>Keep this list in step with the client API: a new call in {@code CodexThread} that sends a method, a new
 * listener that reads a notification, a new typed handler on the builder, each adds an entry here.
 * {@code ClientApiRequirementsTest} (integration tests) fails when the API sends a method that is not listed, or
 * when an entry names an API member that does not exist.
 */
public final class ClientApiRequirements {

    /** Which direction and kind of message a method is. */
    public enum Kind {
        /** A request the client sends. */
        CLIENT_REQUEST("client request"),
        /** A notification the client sends. */
        CLIENT_NOTIFICATION("client notification"),
        /** A notification the server sends. */
        SERVER_NOTIFICATION("notification"),
        /** A request the server sends and the client answers. */
        SERVER_REQUEST("server request");

        private final String label;

        Kind(String label) {
            this.label = label;
        }

        /** How the report names the kind. */
        public String label() {
            return label;
        }
    }

    /**
     * One method the client API relies on.
     *
     * @param kind   the kind of message
     * @param method the wire name
     * @param usedBy the API members that rely on it ({@code Type.member}, or {@code Type.Builder.member})
     */
    public record Requirement(Kind kind, String method, List<String> usedBy) {
        /** Copies {@code usedBy}. */
        public Requirement {
            usedBy = List.copyOf(usedBy);
        }
    }

    private static final List<Requirement> ALL = build();

    private ClientApiRequirements() {
    }

    /** Every requirement, in API order. */
    public static List<Requirement> all() {
        return ALL;
    }

    private static List<Requirement> build() {
        List<Requirement> r = new ArrayList<>();
        // The handshake and login.
        request(r, ClientRequestMethods.INITIALIZE, "CodexClientBuilder.build");
        notification(r, ClientNotificationMethods.INITIALIZED, "CodexClientBuilder.build");
        request(r, ClientRequestMethods.ACCOUNT_LOGIN_START, "CodexClientBuilder.apiKey",
                "CodexClientBuilder.chatgptAuthTokens");
        // Threads.
        request(r, ClientRequestMethods.THREAD_START, "CodexClient.startThread");
        request(r, ClientRequestMethods.THREAD_RESUME, "CodexClient.resumeThread");
        request(r, ClientRequestMethods.THREAD_FORK, "CodexClient.forkThread", "CodexThread.fork");
        request(r, ClientRequestMethods.THREAD_LIST, "CodexClient.listThreads");
        request(r, ClientRequestMethods.THREAD_READ, "CodexThread.read", "CodexTurn.watchdog");
        request(r, ClientRequestMethods.THREAD_NAME_SET, "CodexThread.setName");
        request(r, ClientRequestMethods.THREAD_ARCHIVE, "CodexThread.archive");
        request(r, ClientRequestMethods.THREAD_UNARCHIVE, "CodexThread.unarchive");
        request(r, ClientRequestMethods.THREAD_REVERT, "CodexThread.revertTo");
        request(r, ClientRequestMethods.THREAD_COMPACT_START, "CodexThread.compact");
        request(r, ClientRequestMethods.THREAD_UNSUBSCRIBE, "CodexThread.unsubscribe");
        // Turns.
        request(r, ClientRequestMethods.TURN_START, "CodexThread.startTurn");
        request(r, ClientRequestMethods.TURN_STEER, "CodexTurn.steer");
        request(r, ClientRequestMethods.TURN_INTERRUPT, "CodexTurn.interrupt", "CodexTurn.deadline",
                "CodexTurn.watchdog");
        event(r, ServerNotificationMethods.TURN_COMPLETED, "CodexTurn.result", "CodexTurn.await");
        event(r, ServerNotificationMethods.ITEM_STARTED, "CodexTurn.onItemStarted");
        event(r, ServerNotificationMethods.ITEM_COMPLETED, "CodexTurn.onItemCompleted", "CodexTurn.result");
        event(r, ServerNotificationMethods.ITEM_AGENT_MESSAGE_DELTA, "CodexTurn.onAgentMessageDelta",
                "CodexTurn.result");
        event(r, ServerNotificationMethods.ITEM_COMMAND_EXECUTION_OUTPUT_DELTA, "CodexTurn.onCommandOutputDelta");
        event(r, ServerNotificationMethods.TURN_PLAN_UPDATED, "CodexTurn.onPlanUpdated", "CodexTurn.result");
        event(r, ServerNotificationMethods.TURN_DIFF_UPDATED, "CodexTurn.onDiffUpdated", "CodexTurn.result");
        event(r, ServerNotificationMethods.THREAD_TOKEN_USAGE_UPDATED, "CodexTurn.onTokenUsage", "CodexTurn.result");
        event(r, ServerNotificationMethods.ERROR, "CodexTurn.result");
        // Server requests answered by the builder's handlers; withdrawn ones cancel the handler's stage.
        handled(r, ServerRequestMethods.ITEM_COMMAND_EXECUTION_REQUEST_APPROVAL, "CodexClientBuilder.commandApprovals",
                "CodexClientBuilder.approvals");
        handled(r, ServerRequestMethods.ITEM_FILE_CHANGE_REQUEST_APPROVAL, "CodexClientBuilder.fileChangeApprovals",
                "CodexClientBuilder.approvals");
        handled(r, ServerRequestMethods.ITEM_PERMISSIONS_REQUEST_APPROVAL, "CodexClientBuilder.approvals");
        handled(r, ServerRequestMethods.ITEM_TOOL_REQUEST_USER_INPUT, "CodexClientBuilder.userInput");
        handled(r, ServerRequestMethods.MCP_SERVER_ELICITATION_REQUEST, "CodexClientBuilder.elicitations");
        handled(r, ServerRequestMethods.ACCOUNT_CHATGPT_AUTH_TOKENS_REFRESH,
                "CodexClientBuilder.chatgptTokenRefresh");
        handled(r, ServerRequestMethods.ITEM_TOOL_CALL, "CodexClientBuilder.tool");
        event(r, ServerNotificationMethods.SERVER_REQUEST_RESOLVED, "CodexClientBuilder.serverRequest");
        return List.copyOf(r);
    }

    private static void request(List<Requirement> r, MethodDescriptor<?, ?> method, String... usedBy) {
        r.add(new Requirement(Kind.CLIENT_REQUEST, method.method(), List.of(usedBy)));
    }

    private static void notification(List<Requirement> r, NotificationDescriptor<?> method, String... usedBy) {
        r.add(new Requirement(Kind.CLIENT_NOTIFICATION, method.method(), List.of(usedBy)));
    }

    private static void event(List<Requirement> r, NotificationDescriptor<?> method, String... usedBy) {
        r.add(new Requirement(Kind.SERVER_NOTIFICATION, method.method(), List.of(usedBy)));
    }

    private static void handled(List<Requirement> r, MethodDescriptor<?, ?> method, String... usedBy) {
        r.add(new Requirement(Kind.SERVER_REQUEST, method.method(), List.of(usedBy)));
    }
}
