package dev.codexclient.testkit.internal.model;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Writes server-sent events in the framing the Responses API uses: {@code event: TYPE}, {@code data: JSON}, blank
 * line. Each event is flushed on its own so that a client sees deltas as separate reads.
 */
public final class SseWriter {

    private final OutputStream out;

    public SseWriter(OutputStream out) {
        this.out = out;
    }

    /** Writes one event; {@code data} gets a {@code type} member equal to {@code type}, as the real API sends. */
    public void event(String type, ObjectNode data) throws IOException {
        ObjectNode withType = data.objectNode().put("type", type);
        withType.setAll(data);
        // The JSON is written on one line: serialized JSON never contains a raw line break.
        String frame = "event: " + type + "\ndata: " + withType + "\n\n";
        out.write(frame.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }
}
