package dev.codexclient.spring.boot;

import dev.codexclient.errors.CodexException;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.errors.CodexTransportException;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a start-up that failed because the auto-configured {@code codexClient} could not connect: what the
 * client reported (codex missing, exited with its stderr, or silent past the handshake timeout) and which
 * {@code codex.*} property to change. Failures of other beans are left to the other analyzers.
 */
public final class CodexClientFailureAnalyzer extends AbstractFailureAnalyzer<CodexException> {

    /** Created by Spring Boot's failure analysis. */
    public CodexClientFailureAnalyzer() {
    }

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, CodexException cause) {
        if (!fromCodexClientBean(rootFailure)) {
            return null;
        }
        String description = "The codex client could not connect to the codex app-server: "
                + inPropertyTerms(cause.getMessage());
        String action;
        if (cause instanceof CodexTimeoutException) {
            action = "Check that the configured app-server is codex app-server and answers, or give its handshake "
                    + "more time with codex.initialize-timeout.";
        } else if (cause instanceof CodexTransportException) {
            action = "Install the Codex CLI (npm install -g @openai/codex) or set codex.binary=/path/to/codex; "
                    + "to use an app-server that runs already, set codex.websocket.url or "
                    + "codex.unix-socket.path instead. Set codex.enabled=false to start the application without a "
                    + "codex client.";
        } else {
            action = "Check the codex.* properties against the app-server's version; set codex.enabled=false to "
                    + "start the application without a codex client.";
        }
        return new FailureAnalysis(description, action, cause);
    }

    /**
     * The client's message without its advice for Java code (a builder call), which the action below gives in
     * property terms instead.
     */
    static String inPropertyTerms(String message) {
        if (message == null) {
            return "";
        }
        int advice = message.indexOf(" Install the Codex CLI with");
        return advice >= 0 && message.indexOf("StdioTransport.builder()", advice) >= 0
                ? message.substring(0, advice) : message;
    }

    /** True when the failure is the creation of the auto-configured client, not a failure of the application's. */
    private static boolean fromCodexClientBean(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof BeanCreationException creation && "codexClient".equals(creation.getBeanName())) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }
}
