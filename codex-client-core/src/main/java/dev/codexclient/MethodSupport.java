package dev.codexclient;

/**
 * Whether a server has a method, as far as the SDK can be certain ({@link ServerInfo#supports}). The SDK knows the
 * methods of the codex versions it checked (see {@code dev.codexclient.protocol.MethodVersions}); about any other
 * version, and about a method it has no record of, it knows nothing.
 */
public enum MethodSupport {
    /** The server's version is a checked one that has the method. */
    SUPPORTED,
    /** The server's version is a checked one that lacks the method: the client does not send it. */
    NOT_SUPPORTED,
    /** Not known: the server's version is not a checked one, or is not known, or the method is not recorded. */
    UNKNOWN
}
