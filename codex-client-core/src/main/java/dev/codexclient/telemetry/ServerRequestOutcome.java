package dev.codexclient.telemetry;

/** How the client answered a request the server made of it. */
public enum ServerRequestOutcome {
    /** A handler the user registered answered it. */
    ANSWERED,
    /** No handler was registered for it: the client gave the safe default answer (e.g. decline an approval). */
    DEFAULTED,
    /** The handler threw or its future failed: the client answered with a JSON-RPC error. */
    FAILED,
    /** The connection ended (or the server withdrew the request) before the answer could be sent. */
    ABANDONED
}
