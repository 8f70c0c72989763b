package dev.codexclient.testkit;

import java.time.Duration;
import java.util.Objects;

/**
 * A misbehaviour of the app-server, as a value. Apply it at once with {@link FakeCodexAppServer#apply(Fault)}, or
 * as the answer to a request with {@link Stubbing#fault(Fault)}:
 * <pre>{@code
 * fake.on("turn/start").once().fault(Fault.exit(3));
 * fake.apply(Fault.overloaded("thread/start", 2));
 * }</pre>
 * Effects that need a real process ({@link #floodStderr(long)}) only show in child-process mode; in memory there
 * is no stderr and they do nothing.
 */
public sealed interface Fault {

    /**
     * Closes the server's stdout: the client reads EOF while its writes still reach the fake.
     *
     * @return the fault
     */
    static Fault closeStdout() {
        return new CloseStdout();
    }

    /**
     * The process exits with {@code code} (in memory: the connection ends reporting that exit code).
     *
     * @param code the exit code
     * @return the fault
     */
    static Fault exit(int code) {
        return new Exit(code);
    }

    /**
     * Writes one line that is not JSON.
     *
     * @return the fault
     */
    static Fault garbageLine() {
        return new GarbageLine("this is not json {\"method\":");
    }

    /**
     * Writes one line of the given text, which is not JSON.
     *
     * @param text the line, without a newline
     * @return the fault
     */
    static Fault garbageLine(String text) {
        return new GarbageLine(text);
    }

    /**
     * Writes one valid notification ({@code warning} with a non-ASCII message) in fragments of
     * {@code fragmentBytes} bytes with {@code pause} between them; the cut points fall inside multi-byte UTF-8
     * characters.
     *
     * @param fragmentBytes the size of each fragment in bytes (at least 1)
     * @param pause the pause between two fragments
     * @return the fault
     */
    static Fault slowFragments(int fragmentBytes, Duration pause) {
        return new SlowFragments("fragmented ✓ – naïve café 🎉 done", fragmentBytes, pause);
    }

    /**
     * Like {@link #slowFragments(int, Duration)} with a message of your choice.
     *
     * @param warningMessage the text of the warning notification
     * @param fragmentBytes the size of each fragment in bytes (at least 1)
     * @param pause the pause between two fragments
     * @return the fault
     */
    static Fault slowFragments(String warningMessage, int fragmentBytes, Duration pause) {
        return new SlowFragments(warningMessage, fragmentBytes, pause);
    }

    /**
     * Writes one valid {@code warning} notification whose line is about {@code bytes} bytes long.
     *
     * @param bytes the number of bytes to write
     * @return the fault
     */
    static Fault hugeLine(int bytes) {
        return new HugeLine(bytes);
    }

    /**
     * Stops answering: requests are recorded but get no reply and scripted turns pause, until resumed.
     *
     * @return the fault
     */
    static Fault stall() {
        return new Stall();
    }

    /**
     * A wedged server: stops answering like {@link #stall()} and, in child-process mode, no longer exits when the
     * client closes its stdin, so only a signal ends the process (what a client's close or failed handshake must
     * cope with). In memory it is a stall.
     *
     * @return the fault
     */
    static Fault hang() {
        return new Hang();
    }

    /**
     * Writes {@code bytes} bytes of log lines to stderr (child-process mode).
     *
     * @param bytes the number of bytes to write
     * @return the fault
     */
    static Fault floodStderr(long bytes) {
        return new FloodStderr(bytes);
    }

    /**
     * Writes {@code text} as it is to the child's stderr (child-process mode), e.g. a log line that echoes a
     * secret before the process fails.
     *
     * @param text the text to write, without a newline
     * @return the fault
     */
    static Fault stderr(String text) {
        return new Stderr(text);
    }

    /**
     * Answers the next {@code times} requests of {@code method} with -32001 "Server overloaded; retry later.".
     *
     * @param method the method whose requests get the error
     * @param times how many requests get the error
     * @return the fault
     */
    static Fault overloaded(String method, int times) {
        return new Overloaded(method, times);
    }

    /**
     * The next turn starts ({@code turn/started}) and never completes, not even when interrupted.
     *
     * @return the fault
     */
    static Fault neverCompleteTurn() {
        return new NeverCompleteTurn();
    }

    /**
     * Sends a notification whose method the protocol does not know.
     *
     * @return the fault
     */
    static Fault unknownNotification() {
        return new UnknownNotification("fake/unknownNotification");
    }

    /**
     * Sends a server request whose method the protocol does not know; its reply is recorded.
     *
     * @return the fault
     */
    static Fault unknownServerRequest() {
        return new UnknownServerRequest("fake/unknownRequest");
    }

    /**
     * Sends a response whose id matches no request of the client.
     *
     * @return the fault
     */
    static Fault responseWithUnknownId() {
        return new ResponseWithUnknownId(987_654_321L);
    }

    /** See {@link #closeStdout()}. */
    record CloseStdout() implements Fault {
    }

    /** See {@link #exit(int)}. */
    record Exit(int code) implements Fault {
    }

    /** See {@link #garbageLine(String)}. */
    record GarbageLine(String text) implements Fault {
        /**
         * Checks the line.
         *
         * @param text the line, without a newline
         */
        public GarbageLine {
            Objects.requireNonNull(text, "text");
            if (text.indexOf('\n') >= 0) {
                throw new IllegalArgumentException("a garbage line must not contain a newline");
            }
        }
    }

    /** See {@link #slowFragments(String, int, Duration)}. */
    record SlowFragments(String message, int fragmentBytes, Duration pause) implements Fault {
        /**
         * Checks the sizes.
         *
         * @param message the text of the warning notification
         * @param fragmentBytes the size of each fragment in bytes, at least 1
         * @param pause the pause between two fragments
         */
        public SlowFragments {
            Objects.requireNonNull(message, "message");
            Objects.requireNonNull(pause, "pause");
            if (fragmentBytes < 1) {
                throw new IllegalArgumentException("fragmentBytes must be positive");
            }
        }
    }

    /** See {@link #hugeLine(int)}. */
    record HugeLine(int bytes) implements Fault {
        /**
         * Checks the size.
         *
         * @param bytes the length of the line in bytes, at least 1
         */
        public HugeLine {
            if (bytes < 1) {
                throw new IllegalArgumentException("bytes must be positive");
            }
        }
    }

    /** See {@link #stall()}. */
    record Stall() implements Fault {
    }

    /** See {@link #hang()}. */
    record Hang() implements Fault {
    }

    /** See {@link #floodStderr(long)}. */
    record FloodStderr(long bytes) implements Fault {
    }

    /** See {@link #stderr(String)}. */
    record Stderr(String text) implements Fault {
        /**
         * Checks the text.
         *
         * @param text the text to write, as it is
         */
        public Stderr {
            Objects.requireNonNull(text, "text");
        }
    }

    /** See {@link #overloaded(String, int)}. */
    record Overloaded(String method, int times) implements Fault {
        /**
         * Checks the method.
         *
         * @param method the method whose requests get the error
         * @param times how many requests get the error
         */
        public Overloaded {
            Objects.requireNonNull(method, "method");
        }
    }

    /** See {@link #neverCompleteTurn()}. */
    record NeverCompleteTurn() implements Fault {
    }

    /** See {@link #unknownNotification()}. */
    record UnknownNotification(String method) implements Fault {
    }

    /** See {@link #unknownServerRequest()}. */
    record UnknownServerRequest(String method) implements Fault {
    }

    /** See {@link #responseWithUnknownId()}. */
    record ResponseWithUnknownId(long id) implements Fault {
    }
}
