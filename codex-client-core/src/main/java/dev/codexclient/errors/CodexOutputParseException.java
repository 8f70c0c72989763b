package dev.codexclient.errors;

/**
 * The final agent message of a structured-output turn does not parse into the requested Java type. The message
 * text is available from {@link #rawOutput()}, so nothing the model produced is lost.
 */
public class CodexOutputParseException extends CodexException {
    private static final long serialVersionUID = 1L;

    private final String rawOutput;
    private final String targetType;

    public CodexOutputParseException(String targetType, String rawOutput, Throwable cause) {
        super("the turn's final message does not parse as " + targetType + ": " + cause.getMessage(), cause);
        this.rawOutput = rawOutput;
        this.targetType = targetType;
    }

    /** The final agent message exactly as codex produced it. */
    public String rawOutput() {
        return rawOutput;
    }

    /** The name of the type the output was to be parsed into. */
    public String targetType() {
        return targetType;
    }
}
