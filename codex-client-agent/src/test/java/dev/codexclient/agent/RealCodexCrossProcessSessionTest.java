package dev.codexclient.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.testkit.ModelRequest;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.testkit.ScriptedModelServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run with a session key and a workspace resumes its thread in the next process, on the real codex: two JVMs
 * ({@link SessionRunMain}), each copying the same host files into a workspace of its own, and the model sees both
 * turns in one conversation.
 */
@Tag("real-codex")
@Timeout(180)
class RealCodexCrossProcessSessionTest {
    @TempDir
    Path tmp;
    ScriptedModelServer model;
    Path repo;

    @BeforeEach
    void setUp() throws IOException {
        model = ScriptedModelServer.start();
        repo = tmp.resolve("host/repo");
        Files.createDirectories(repo.resolve("src"));
        Files.writeString(repo.resolve("src/Main.java"), "class Main {}\n");
    }

    @AfterEach
    void tearDown() {
        model.close();
    }

    /** One run in a new JVM; gives {@code threadId resumed workspaceDirectory}. */
    private String[] runInAnotherJvm(String prompt, String name) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path result = tmp.resolve(name + ".result");
        ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                SessionRunMain.class.getName(), TestCodex.binary().toString(), repo.toString(),
                tmp.resolve("workspaces").toString(), tmp.resolve("sessions").toString(), "review-42", prompt,
                result.toString())
                .redirectErrorStream(true).redirectOutput(tmp.resolve(name + ".log").toFile());
        // The child, and the codex it spawns, get the scripted model's private HOME and CODEX_HOME.
        model.applyEnvironment(pb.environment());
        Process child = pb.start();
        assertThat(child.waitFor(120, TimeUnit.SECONDS)).as("the run in %s ended", name).isTrue();
        assertThat(child.exitValue()).as(Files.readString(tmp.resolve(name + ".log"))).isZero();
        return Files.readString(result, StandardCharsets.UTF_8).split(" ");
    }

    @Test
    void theSameKeyAndWorkspaceContentResumeTheThreadInAnotherProcess() throws Exception {
        model.enqueue(ModelStep.reply("first answer").withUsage(100, 10),
                ModelStep.reply("second answer").withUsage(150, 10));
        String[] first = runInAnotherJvm("remember the word PELICAN", "first");
        String[] second = runInAnotherJvm("which word did I ask you to remember?", "second");

        assertThat(first[1]).isEqualTo("false");
        assertThat(second[1]).as("resumed").isEqualTo("true");
        assertThat(second[0]).isEqualTo(first[0]);
        assertThat(second[2]).as("each process has its own workspace directory").isNotEqualTo(first[2]);
        // The model saw two user turns in one conversation: the first turn and its answer come before the second.
        ModelRequest request = model.requests().get(1);
        List<String> userTexts = new ArrayList<>();
        request.input().stream().filter(i -> "user".equals(i.path("role").asText()))
                .map(i -> i.path("content").path(0).path("text").asText())
                .filter(t -> !t.startsWith("<"))
                .forEach(userTexts::add);
        assertThat(userTexts).containsExactly("remember the word PELICAN", "which word did I ask you to remember?");
        assertThat(request.input().toString()).contains("first answer");
        // Codex was told the second process's directory before the turn.
        assertThat(request.input().toString()).contains("<cwd>" + second[2]);
    }
}
