package dev.codexclient.protocol;

import java.util.Objects;

/**
 * A notification method of the protocol: its wire name and the Java type of its params.
 *
 * @param <P> params type ({@code Void} when the notification has none)
 */
public final class NotificationDescriptor<P> {
    private final String method;
    private final Class<P> paramsType;
    private final ParamsPresence paramsPresence;
    private final boolean experimental;
    private final MethodVersions versions;

    /**
     * A notification whose versions nothing records ({@link MethodVersions#unrecorded()}).
     *
     * @param method         the wire name, e.g. {@code turn/completed}
     * @param paramsType     the params type; {@code Void.class} when the notification has none
     * @param paramsPresence whether the notification carries params: required, optional or none
     * @param experimental   whether the notification exists only in the experimental schema
     */
    public NotificationDescriptor(String method, Class<P> paramsType, ParamsPresence paramsPresence,
                                  boolean experimental) {
        this(method, paramsType, paramsPresence, experimental, MethodVersions.unrecorded());
    }

    /**
     * A notification method; the generated table creates one per notification of the schema.
     *
     * @param method         the wire name, e.g. {@code turn/completed}
     * @param paramsType     the params type; {@code Void.class} when the notification has none
     * @param paramsPresence whether the notification carries params: required, optional or none
     * @param experimental   whether the notification exists only in the experimental schema
     * @param versions       the checked codex versions that have the notification
     */
    public NotificationDescriptor(String method, Class<P> paramsType, ParamsPresence paramsPresence,
                                  boolean experimental, MethodVersions versions) {
        this.method = Objects.requireNonNull(method, "method");
        this.paramsType = Objects.requireNonNull(paramsType, "paramsType");
        this.paramsPresence = Objects.requireNonNull(paramsPresence, "paramsPresence");
        this.experimental = experimental;
        this.versions = Objects.requireNonNull(versions, "versions");
    }

    /** {@return the wire name, e.g. {@code turn/completed}} */
    public String method() { return method; }

    /** {@return the params type; {@code Void.class} when {@link #paramsPresence()} is {@link ParamsPresence#NONE}} */
    public Class<P> paramsType() { return paramsType; }

    /** {@return whether the notification carries params: required, optional or none} */
    public ParamsPresence paramsPresence() { return paramsPresence; }

    /** {@return whether the notification exists only in the experimental schema (see {@link Experimental})} */
    public boolean experimental() { return experimental; }

    /** {@return the checked codex versions that have the notification (a server of a checked version without it never sends it)} */
    public MethodVersions versions() { return versions; }

    @Override
    public String toString() {
        return "NotificationDescriptor[" + method + ": " + paramsType.getSimpleName()
                + (experimental ? ", experimental" : "") + "]";
    }
}
