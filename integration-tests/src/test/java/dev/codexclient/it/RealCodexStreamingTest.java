package dev.codexclient.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.testkit.ModelStep;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * 100 000 lines of command output stream through a client whose JVM has a 64 MB heap: the output deltas arrive,
 * the command completes, and the heap stays bounded. The client runs in a JVM of its own so that its heap limit
 * is real and not shared with the test runner.
 */
@Tag("real-codex")
@Timeout(90)
class RealCodexStreamingTest {
    private static final int LINES = 100_000;
    private static final String LINE_FORMAT = "line %06g of a long command output, streamed to the client";
    @RegisterExtension
    final RealCodexFixture codex = new RealCodexFixture();


    @Test
    void hundredThousandLinesStreamWithBoundedMemory() throws Exception {
        // In batches with short pauses: codex streams output deltas while a command runs, but a command that is
        // over within its first read (a bare `seq` of 6 MB) reaches the client only as the completed item.
        String cmd = "for b in $(seq 0 99); do seq -f '" + LINE_FORMAT + "' $((b*1000+1)) $((b*1000+1000));"
                + " sleep 0.02; done";
        codex.model.enqueue(ModelStep.callTool("exec_command", Map.of(
                        "cmd", cmd, "login", false, "yield_time_ms", 30_000)),
                ModelStep.reply("printed"));
        Map<String, String> seen = runProbe(64, 50);

        assertThat(seen).containsEntry("status", "completed").containsEntry("commandStatus", "completed")
                .containsEntry("exitCode", "0");
        long lineBytes = LINE_FORMAT.replace("%06g", "000000").length() + 1L;
        assertThat(Long.parseLong(seen.get("deltas"))).isPositive();
        // Codex folds what a command printed before its first read into the item instead of deltas (a few
        // thousand lines here); the rest streams.
        assertThat(Long.parseLong(seen.get("deltaNewlines"))).isBetween(LINES / 2L, (long) LINES);
        assertThat(Long.parseLong(seen.get("deltaChars"))).isGreaterThan(lineBytes * LINES / 2);
        assertThat(Long.parseLong(seen.get("heapUsedAfterGc")))
                .as("heap after the turn, bytes (the output alone is %d bytes)", lineBytes * LINES)
                .isLessThan(32L * 1024 * 1024);
    }

    private Map<String, String> runProbe(int heapMb, int replayLimit) throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = new ArrayList<>(List.of(java.toString(), "-Xmx" + heapMb + "m",
                "-XX:+ExitOnOutOfMemoryError", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp", System.getProperty("java.class.path"), StreamingMemoryProbe.class.getName(),
                RealCodexFixture.binary().toString(), codex.model.home().toString(),
                codex.workspace.toString(), Integer.toString(replayLimit)));
        Path out = Files.createTempFile("codex-probe", ".out");
        try {
            Process probe = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(out.toFile()).start();
            boolean exited = probe.waitFor(75, TimeUnit.SECONDS);
            if (!exited) {
                probe.descendants().forEach(ProcessHandle::destroyForcibly);
                probe.destroyForcibly();
            }
            String text = Files.readString(out, StandardCharsets.UTF_8);
            assertThat(exited).as("probe exited in time; output:%n%s", text).isTrue();
            assertThat(probe.exitValue()).as("probe exit code; output:%n%s", text).isZero();
            Map<String, String> seen = new LinkedHashMap<>();
            text.lines().filter(l -> l.matches("[A-Za-z]+=.*"))
                    .forEach(l -> seen.put(l.substring(0, l.indexOf('=')), l.substring(l.indexOf('=') + 1)));
            System.out.println("streaming probe: " + seen);
            return seen;
        } finally {
            Files.deleteIfExists(out);
        }
    }
}
