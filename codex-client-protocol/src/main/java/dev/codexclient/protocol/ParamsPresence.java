package dev.codexclient.protocol;

/** Whether a method's {@code params} member is required, may be omitted, or does not exist. */
public enum ParamsPresence {
    /** The method always carries params. */
    REQUIRED,
    /** Params may be omitted (the schema says {@code anyOf [X, null]}). */
    OPTIONAL,
    /** The method has no params at all; {@link MethodDescriptor#paramsType()} is {@code Void}. */
    NONE
}
