package dev.codexclient.protocol;

import java.util.Objects;

/**
 * A request method of the protocol: its wire name, the Java type of its params and of its result.
 *
 * <p>Generated tables ({@code ClientRequestMethods}, {@code ServerRequestMethods}) hold one constant per method, so
 * a caller can send a request and decode its response without a string anywhere:
 * <pre>{@code
 * MethodDescriptor<ThreadStartParams, ThreadStartResponse> m = ClientRequestMethods.THREAD_START;
 * }</pre>
 *
 * @param <P> params type ({@code Void} when the method has none)
 * @param <R> result type
 */
public final class MethodDescriptor<P, R> {
    private final String method;
    private final Class<P> paramsType;
    private final Class<R> resultType;
    private final ParamsPresence paramsPresence;
    private final boolean experimental;
    private final MethodVersions versions;

    /**
     * A method whose versions nothing records ({@link MethodVersions#unrecorded()}): a method of your own, or one
     * a newer codex has and this SDK does not type yet. The client sends it to any server.
     *
     * @param method         the wire name, e.g. {@code thread/start}
     * @param paramsType     the params type; {@code Void.class} when the method has none
     * @param resultType     the type the {@code result} member decodes into
     * @param paramsPresence whether the request carries params: required, optional or none
     * @param experimental   whether the method exists only in the experimental schema
     */
    public MethodDescriptor(String method, Class<P> paramsType, Class<R> resultType,
                            ParamsPresence paramsPresence, boolean experimental) {
        this(method, paramsType, resultType, paramsPresence, experimental, MethodVersions.unrecorded());
    }

    /**
     * A method; the generated tables create one per method of the schema.
     *
     * @param method         the wire name, e.g. {@code thread/start}
     * @param paramsType     the params type; {@code Void.class} when the method has none
     * @param resultType     the type the {@code result} member decodes into
     * @param paramsPresence whether the request carries params: required, optional or none
     * @param experimental   whether the method exists only in the experimental schema
     * @param versions       the checked codex versions that have the method
     */
    public MethodDescriptor(String method, Class<P> paramsType, Class<R> resultType,
                            ParamsPresence paramsPresence, boolean experimental, MethodVersions versions) {
        this.method = Objects.requireNonNull(method, "method");
        this.paramsType = Objects.requireNonNull(paramsType, "paramsType");
        this.resultType = Objects.requireNonNull(resultType, "resultType");
        this.paramsPresence = Objects.requireNonNull(paramsPresence, "paramsPresence");
        this.experimental = experimental;
        this.versions = Objects.requireNonNull(versions, "versions");
    }

    /** {@return the wire name, e.g. {@code thread/start}} */
    public String method() { return method; }

    /** {@return the params type; {@code Void.class} when {@link #paramsPresence()} is {@link ParamsPresence#NONE}} */
    public Class<P> paramsType() { return paramsType; }

    /** {@return the type the {@code result} member decodes into} */
    public Class<R> resultType() { return resultType; }

    /** {@return whether the request carries params: required, optional or none} */
    public ParamsPresence paramsPresence() { return paramsPresence; }

    /** {@return whether the method exists only in the experimental schema (see {@link Experimental})} */
    public boolean experimental() { return experimental; }

    /**
     * {@return the checked codex versions that have the method} The client does not send a method to a server of
     * a checked version that lacks it ({@code CodexMethodNotSupportedException}, without a round trip).
     */
    public MethodVersions versions() { return versions; }

    @Override
    public String toString() {
        return "MethodDescriptor[" + method + ": " + paramsType.getSimpleName() + " -> " + resultType.getSimpleName()
                + (experimental ? ", experimental" : "") + "]";
    }
}
