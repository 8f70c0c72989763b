package dev.codexclient.it.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The figures of the fault-injection suite: one row per case, printed as a markdown table and written to
 * {@code target/reliability.md} (rows of every reliability test class of the run, in execution order).
 */
final class ReliabilityReport {
    private static final List<Row> ROWS = new ArrayList<>();
    private static final String LEGEND = "messages sent: notifications, server requests and raw lines the server "
            + "wrote; messages received: notifications the client delivered to listeners (or, for the overload case, "
            + "responses it consumed); requests answered: server requests the client answered, each exactly once; "
            + "leaks: codex- threads, pipes/sockets and child processes left after the case.";

    /** One case: what the fake sent, what the client delivered and answered, what leaked, how long it took. */
    record Row(String name, long sent, long received, long answered, String leaks, long millis, String outcome) {
    }

    private ReliabilityReport() {
    }

    static synchronized void add(Row row) {
        ROWS.removeIf(r -> r.name().equals(row.name()));
        ROWS.add(row);
    }

    static synchronized String markdown() {
        StringBuilder sb = new StringBuilder();
        sb.append("| case | messages sent | messages received | requests answered | leaks | time (ms) | outcome |\n");
        sb.append("|---|---:|---:|---:|---|---:|---|\n");
        for (Row r : ROWS) {
            sb.append("| ").append(r.name()).append(" | ").append(r.sent()).append(" | ").append(r.received())
                    .append(" | ").append(r.answered()).append(" | ").append(r.leaks()).append(" | ")
                    .append(r.millis()).append(" | ").append(r.outcome().replace('|', '/')).append(" |\n");
        }
        return sb.toString();
    }

    /** Prints the table and writes it next to the build output. */
    static synchronized void publish() {
        String table = markdown();
        System.out.println();
        System.out.println("Reliability suite");
        System.out.println(LEGEND);
        System.out.print(table);
        Path target = Path.of("target");
        if (!Files.isDirectory(target)) {
            return; // not run from the module directory: printing is enough
        }
        try {
            Files.writeString(target.resolve("reliability.md"), "# Reliability suite\n\n" + LEGEND + "\n\n" + table,
                    StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
