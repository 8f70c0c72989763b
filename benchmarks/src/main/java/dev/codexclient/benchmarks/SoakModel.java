package dev.codexclient.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.testkit.ModelRequest;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.testkit.ScriptedModelServer;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The soak's scripted model, in a JVM of its own so that the client's JVM holds nothing but the client and its load:
 * its heap, threads and file descriptors are what the soak measures. It keeps no requests (a run of thousands of
 * turns), writes its {@code config.toml} into the {@code CODEX_HOME} it is given, prints {@code PORT n}, then prints
 * {@code DUPLICATE token} each time the first request of a turn arrives a second time (a turn codex started twice),
 * and ends when its standard input closes.
 *
 * <p>A turn's user message is {@code KIND TOKEN}: {@code chat} streams a reply of {@link ScalingFigure#PROSE},
 * {@code approve} runs a command that writes, so that codex asks for approval, and {@code tool} calls the client's
 * dynamic tool {@link #TOOL}; once a call's output is back, the model replies.
 */
final class SoakModel {
    static final String TOOL = "soak_lookup";
    static final String CHAT = "chat";
    static final String APPROVE = "approve";
    static final String CALL = "tool";

    private SoakModel() {
    }

    public static void main(String[] args) throws IOException {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        Map<String, Integer> firstRequests = new HashMap<>();
        try (ScriptedModelServer model = ScriptedModelServer.start().recordRequests(false)) {
            // Seen once per request, under the server's lock: counts the first request of each turn.
            model.whenAlways(r -> {
                if (!afterOutput(r)) {
                    String token = token(r.lastUserText());
                    if (!token.isEmpty() && firstRequests.merge(token, 1, Integer::sum) == 2) {
                        out.println("DUPLICATE " + token);
                    }
                }
                return false;
            }, ModelStep.reply("never"));
            model.whenAlways(SoakModel::afterOutput, ModelStep.reply("Done: the result is in."));
            model.whenAlways(r -> r.lastUserText().startsWith(APPROVE + " "), ModelStep.callTool("exec_command",
                    Map.of("cmd", "printf 'soak\\n' | tee -a soak-approved.log", "login", false)));
            model.whenAlways(r -> r.lastUserText().startsWith(CALL + " "),
                    ModelStep.callTool(TOOL, Map.of("id", "SOAK-1")));
            model.whenAlways(r -> true, ModelStep.reply(ScalingFigure.PROSE));
            model.writeCodexHome(Path.of(args[0]));
            out.println("PORT " + model.port());
            // Until the soak closes our standard input.
            while (System.in.read() >= 0) {
                // nothing to read
            }
        }
    }

    /** The turn's token: the second word of {@code KIND TOKEN}. */
    static String token(String userText) {
        int space = userText.indexOf(' ');
        return space < 0 ? "" : userText.substring(space + 1).strip();
    }

    /** Whether the request follows a call's output: the model's second step of a turn. */
    private static boolean afterOutput(ModelRequest r) {
        List<JsonNode> input = r.input();
        return !input.isEmpty() && input.get(input.size() - 1).path("type").asText().endsWith("_output");
    }
}
