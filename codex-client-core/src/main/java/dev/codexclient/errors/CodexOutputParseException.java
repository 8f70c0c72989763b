package dev.codexclient.errors;

/**
 * The final agent message of a structured-output turn does not parse into the requested Java type. The message
 * text is available from {@link #rawOutput()}, so nothing the model produced is lost.
 */
public class CodexOutputParseException extends CodexException {
    private static final long serialVersionUID = 1L;

    /** The final agent message exactly as codex produced it. */
    private final String rawOutput;
    /** The name of the type the output was to be parsed into. */
    private final String targetType;

    /**
     * A final message that does not parse.
     *
     * @param targetType the name of the type the output was to be parsed into
     * @param rawOutput  the final agent message exactly as codex produced it
     * @param cause      the parser's failure; its message becomes part of this one
     */
    public CodexOutputParseException(String targetType, String rawOutput, Throwable cause) {
        super("the turn's final message does not parse as " + targetType + ": " + cause.getMessage(), cause);
        this.rawOutput = rawOutput;
        this.targetType = targetType;
    }

    /** {@return the final agent message exactly as codex produced it} */
    public String rawOutput() {
        return rawOutput;
    }

    /** {@return the name of the type the output was to be parsed into} */
    public String targetType() {
        return targetType;
    }
}
