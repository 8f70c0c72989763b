package dev.codexclient.telemetry;

/** How a request the client sent ended. */
public enum RequestOutcome {
    /** The server answered with a result. */
    SUCCEEDED,
    /** The server answered with a JSON-RPC error (including a method it does not offer). */
    RPC_ERROR,
    /** No answer came within the request's timeout. */
    TIMED_OUT,
    /** The caller cancelled the request's future. */
    CANCELLED,
    /** The connection ended before the answer came. */
    CONNECTION_LOST,
    /** The client could not send the request or read its answer (e.g. a result that does not fit the schema). */
    CLIENT_ERROR
}
