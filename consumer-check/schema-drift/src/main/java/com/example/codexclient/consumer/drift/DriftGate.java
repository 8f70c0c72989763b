package com.example.codexclient.consumer.drift;

import dev.codexclient.drift.SchemaDrift;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** What a deployment pipeline does with the drift artifact: checks a schema its codex exported before rolling out. */
public final class DriftGate {
    /** The report's exit status and text. */
    public record Outcome(int status, String report) {
    }

    private DriftGate() {
    }

    /** The drift report of the schema {@code codex app-server generate-json-schema} wrote to {@code schema}. */
    public static Outcome check(Path schema) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
        int status = SchemaDrift.run(new String[] {"--schema", schema.toString()}, print, print);
        return new Outcome(status, out.toString(StandardCharsets.UTF_8));
    }
}
