package dev.codexclient.internal.rpc;

/**
 * A handler's answer to a server request that says more than the reply: the dispatcher sends {@link #result()}, or
 * an error reply for {@link #error()}, and hands the whole answer to its {@link ServerRequestObserver}, so that
 * what the handler decided is reported as it was decided, not read back from the reply.
 */
public interface ServerRequestAnswer {

    /** {@return the reply's result when the request is answered (null: an empty result)} */
    Object result();

    /** {@return the failure to answer with an error reply; null when the request is answered with a result} */
    Throwable error();
}
