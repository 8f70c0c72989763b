package dev.codexclient.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;

/** The agent review example runs end to end and prints its preview, verdict, tools and usage. */
@Isolated
@Timeout(120)
class AgentReviewTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private PrintStream original;

    private String run(String backend) {
        original = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setProperty("backend", backend);
        AgentReview.main(new String[0]);
        return out.toString(StandardCharsets.UTF_8);
    }

    @AfterEach
    void restore() {
        if (original != null) {
            System.setOut(original);
        }
        System.clearProperty("backend");
    }

    @Test
    void reviewsOnTheFake() {
        assertThat(run("fake")).contains("Workspace: ").contains("- /code <- java")
                .contains("verdict: approve - Workspaces copy only regular files")
                .contains("finding: HostTree: a file is read relative to the directory it was listed in").contains("tokens:  1800 of a budget of 200000");
    }

    @Test
    @Tag("real-codex")
    void reviewsOnTheRealCodex() {
        assertThat(run("scripted")).contains("backend: real codex").contains("- /code <- java")
                .contains("verdict: approve").contains("tool:    COMMAND ").contains("find code -name")
                .contains("-> COMPLETED").contains("tokens:  ");
    }
}
