package dev.codexclient.testkit.internal.fake;

/**
 * The fake's end of one client connection: what the fake can do to the client's view of a codex process.
 * Implemented in memory and over the child-process relay.
 */
public interface ServerLink {

    /** Receives what the client writes; called on one thread per link, in order. */
    interface Listener {
        void onClientLine(byte[] line);

        /** The client closed its side (stdin of the child); no more lines will arrive. */
        void onClientClosed();
    }

    /** Starts delivering client lines to the listener. */
    void start(Listener listener);

    /** Writes one message followed by a newline. */
    void writeLine(byte[] message);

    /** Writes bytes as they are, without framing; used to produce fragments, garbage and partial lines. */
    void writeRaw(byte[] bytes);

    /** Writes to the child's stderr; discarded in memory, where there is no stderr. */
    void writeStderr(byte[] bytes);

    /** Writes {@code bytes} bytes of log-like text to stderr from the child itself. */
    void floodStderr(long bytes);

    /** Keeps the process running when the client closes its stdin (child-process mode; nothing in memory). */
    void ignoreStdinEof();

    /** Ends the client's input (stdout EOF) while still reading what the client writes. */
    void closeStdout();

    /** Ends the connection as if the process exited with {@code code}. */
    void exit(int code);

    boolean isOpen();

    String describe();
}
