package dev.codexclient.internal.rpc;

import dev.codexclient.protocol.RequestId;

/** What a codec asks while it reads a response: the type the call waiting under an id expects its result in. */
@FunctionalInterface
public interface ResultTypes {
    /** None pending: every response is unmatched. */
    ResultTypes NONE = id -> null;

    /** The result type of the call pending under {@code id}, or {@code null} when none is. */
    Class<?> resultTypeOf(RequestId id);
}
