package dev.codexclient.spring.ai.autoconfigure;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code spring.ai.codex.chat.*} properties: the threads the auto-configured {@code CodexChatModel} starts, the
 * default options of its turns, and its bounds. An unset property keeps the model's default (the server's, for the
 * thread and turn settings).
 */
@ConfigurationProperties(prefix = CodexChatProperties.PREFIX)
public class CodexChatProperties {
    /** The properties' prefix. */
    public static final String PREFIX = "spring.ai.codex.chat";

    /** The threads the model starts for conversations and for prompts of their own. */
    private final Thread thread = new Thread();
    /** The default options of each prompt's turn. */
    private final Options options = new Options();
    /** How long a call waits for its turn, from the prompt, before it interrupts the turn (default 10 minutes). */
    private Duration turnTimeout;
    /** The most conversations kept in memory; past it the least recently used idle one is let go (default 10000). */
    private Integer maxConversations;

    /** Bound by Spring. */
    public CodexChatProperties() {
    }

    /** {@return the thread settings} */
    public Thread getThread() {
        return thread;
    }

    /** {@return the default options} */
    public Options getOptions() {
        return options;
    }

    /** {@return how long a call waits for its turn; null for the default} */
    public Duration getTurnTimeout() {
        return turnTimeout;
    }

    /**
     * Sets how long a call waits for its turn.
     *
     * @param turnTimeout the bound
     */
    public void setTurnTimeout(Duration turnTimeout) {
        this.turnTimeout = turnTimeout;
    }

    /** {@return the most conversations kept in memory; null for the default} */
    public Integer getMaxConversations() {
        return maxConversations;
    }

    /**
     * Sets the most conversations kept in memory.
     *
     * @param maxConversations the bound
     */
    public void setMaxConversations(Integer maxConversations) {
        this.maxConversations = maxConversations;
    }

    /** What the model's threads start with. */
    public static class Thread {
        /** The working directory of the threads (default: the server's). */
        private String cwd;
        /** The sandbox of the threads: read-only, workspace-write or danger-full-access (default: the server's). */
        private String sandbox;
        /** The model of the threads (default: the server's). */
        private String model;

        /** Bound by Spring. */
        public Thread() {
        }

        /** {@return the working directory; null for the server's} */
        public String getCwd() {
            return cwd;
        }

        /**
         * Sets the working directory.
         *
         * @param cwd the directory
         */
        public void setCwd(String cwd) {
            this.cwd = cwd;
        }

        /** {@return the sandbox; null for the server's} */
        public String getSandbox() {
            return sandbox;
        }

        /**
         * Sets the sandbox.
         *
         * @param sandbox read-only, workspace-write or danger-full-access
         */
        public void setSandbox(String sandbox) {
            this.sandbox = sandbox;
        }

        /** {@return the model; null for the server's} */
        public String getModel() {
            return model;
        }

        /**
         * Sets the model.
         *
         * @param model the model
         */
        public void setModel(String model) {
            this.model = model;
        }
    }

    /** The default options of a prompt's turn ({@code CodexChatOptions}); a prompt's own options win. */
    public static class Options {
        /** The model of each turn (default: the thread's). */
        private String model;
        /** The reasoning effort of each turn: low, medium, high, ... (default: the thread's). */
        private String effort;
        /** The working directory of each turn (default: the thread's). */
        private String cwd;

        /** Bound by Spring. */
        public Options() {
        }

        /** {@return the model; null for the thread's} */
        public String getModel() {
            return model;
        }

        /**
         * Sets the model.
         *
         * @param model the model
         */
        public void setModel(String model) {
            this.model = model;
        }

        /** {@return the effort; null for the thread's} */
        public String getEffort() {
            return effort;
        }

        /**
         * Sets the effort.
         *
         * @param effort low, medium, high, ...
         */
        public void setEffort(String effort) {
            this.effort = effort;
        }

        /** {@return the working directory; null for the thread's} */
        public String getCwd() {
            return cwd;
        }

        /**
         * Sets the working directory.
         *
         * @param cwd the directory
         */
        public void setCwd(String cwd) {
            this.cwd = cwd;
        }
    }
}
