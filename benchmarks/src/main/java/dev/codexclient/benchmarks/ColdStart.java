package dev.codexclient.benchmarks;

import dev.codexclient.CodexClient;
import dev.codexclient.protocol.ServerNotification;
import java.lang.management.ManagementFactory;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Figure 4, run in a fresh JVM: builds a client, performs the handshake against the in-process canned server, and
 * prints the JVM uptime and the classes loaded; then decodes one agent-message delta and prints the count again.
 * (The canned server parses with a plain {@code ObjectMapper} and touches no protocol type.)
 */
public final class ColdStart {
    private ColdStart() {
    }

    @SuppressWarnings("try") // the client only has to stay open while the listener counts
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--baseline")) {
            baseline();
            return;
        }
        Recording recording = Recording.load();
        CompletableFuture<ServerNotification> first = new CompletableFuture<>();
        CannedServer server = new CannedServer(recording, false);
        try (CodexClient client = CodexClient.builder().transport(server).onNotification(first::complete).build()) {
            report("initialized");
            server.inject(Recording.bytes(recording.first("item/agentMessage/delta")));
            ServerNotification n = first.get(10, TimeUnit.SECONDS);
            if (!(n instanceof ServerNotification.ItemAgentMessageDelta)) {
                throw new IllegalStateException("expected a typed delta, got " + n);
            }
            report("delta");
        }
    }

    /**
     * The same JVM doing the least a Java client must: start a reader thread, read the recording with Jackson, and
     * parse an {@code initialize} response into a tree. Separates JVM and Jackson start-up from the SDK's own.
     */
    private static void baseline() throws Exception {
        CompletableFuture<Object> parsed = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try {
                Recording recording = Recording.load();
                parsed.complete(new com.fasterxml.jackson.databind.ObjectMapper()
                        .readTree(Recording.bytes(recording.result(1))));
            } catch (RuntimeException | java.io.IOException e) {
                parsed.completeExceptionally(e);
            }
        }, "baseline-reader");
        reader.setDaemon(true);
        reader.start();
        parsed.get(30, TimeUnit.SECONDS);
        report("initialized");
    }

    /**
     * Prints one phase line. Built without {@code +}: the first string concatenation of a JVM bootstraps
     * {@code StringConcatFactory} (tens of milliseconds), which would land in the wall time of whichever side
     * happened not to have paid for it yet.
     */
    private static void report(String phase) {
        long uptime = ManagementFactory.getRuntimeMXBean().getUptime();
        int classes = ManagementFactory.getClassLoadingMXBean().getLoadedClassCount();
        System.out.println(new StringBuilder("RESULT phase=").append(phase).append(" uptimeMs=").append(uptime)
                .append(" classes=").append(classes));
        System.out.flush();
    }
}
