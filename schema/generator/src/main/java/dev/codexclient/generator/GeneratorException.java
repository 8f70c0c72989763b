package dev.codexclient.generator;

/** A schema construct the generator does not understand, or an inconsistency in schema and overrides. */
public final class GeneratorException extends RuntimeException {
    public GeneratorException(String message) {
        super(message);
    }
}
