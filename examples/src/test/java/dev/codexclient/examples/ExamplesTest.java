package dev.codexclient.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.testkit.CodexBinary;
import dev.codexclient.testkit.CodexBinaryUnavailableException;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Every example runs end to end and prints what it promises, the same on the fake backend as on the real codex
 * with the scripted model, and leaves no scratch workspace behind. Each case checks which backend ran: a case on
 * the real codex fails when it ran anywhere else.
 */
@Isolated
@Timeout(120)
class ExamplesTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private PrintStream original;
    private Set<Path> workspacesBefore;

    private void use(String backend) {
        workspacesBefore = workspaces();
        original = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setProperty("backend", backend);
    }

    @AfterEach
    void restore() {
        if (original != null) {
            System.setOut(original);
        }
        System.clearProperty("backend");
        assertThat(workspaces()).as("scratch workspaces left behind").isSubsetOf(workspacesBefore);
    }

    private static Set<Path> workspaces() {
        try (Stream<Path> entries = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return entries.filter(p -> p.getFileName().toString().startsWith("codex-example"))
                    .collect(Collectors.toSet());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private String output() {
        return out.toString(StandardCharsets.UTF_8);
    }

    /**
     * The line an example prints when it ran on the real codex: the version of the codex it found, which
     * {@link CodexBinary#find} also finds here (a test on the real codex must not pass on the fake).
     */
    private static String realCodexBackendLine() {
        return "backend: real codex " + CodexBinary.versionOf(CodexBinary.find(line -> { }))
                + " with a scripted model on loopback";
    }

    private void quickstartStreamsTextAndReportsUsage(String backend) {
        use(backend);
        Quickstart.main(new String[0]);
        assertThat(output()).contains("Hello! This workspace has a src and a tests directory")
                .contains("status:  COMPLETED")
                .contains("tokens:  1314 this turn (1250 in, 64 out)");
    }

    @Test
    void quickstartOnTheFake() {
        quickstartStreamsTextAndReportsUsage("fake");
        assertThat(output()).contains("backend: fake app-server (testkit, in memory)");
    }

    @Test
    @Tag("real-codex")
    void quickstartOnTheRealCodex() {
        quickstartStreamsTextAndReportsUsage("scripted");
        assertThat(output()).contains(realCodexBackendLine()).doesNotContain("fake app-server").contains("$ ")
                .contains("(exit 0)");
    }

    private void kotlinQuickstartStreamsTextListsTheCommandAndReportsUsage(String backend) {
        use(backend);
        KotlinQuickstart.main(new String[0]);
        assertThat(output()).contains("Hello from Kotlin! This workspace has a src and a tests directory")
                .containsPattern("\\$ .*\\(exit 0\\)")
                .contains("status:  COMPLETED")
                .contains("tokens:  1314 this turn (1250 in, 64 out)");
    }

    @Test
    void kotlinQuickstartOnTheFake() {
        kotlinQuickstartStreamsTextListsTheCommandAndReportsUsage("fake");
        assertThat(output()).contains("backend: fake app-server (testkit, in memory)");
    }

    @Test
    @Tag("real-codex")
    void kotlinQuickstartOnTheRealCodex() {
        kotlinQuickstartStreamsTextListsTheCommandAndReportsUsage("scripted");
        assertThat(output()).contains(realCodexBackendLine()).doesNotContain("fake app-server");
    }

    private void consoleApprovalsAcceptsOnlyTheReadOnlyCommand(String backend) {
        use(backend);
        ConsoleApprovals.main(new String[0]);
        assertThat(output()).contains("deciding by policy")
                .containsPattern("policy: accept command `/bin/bash -l?c 'ls -la'`")
                .containsPattern("policy: decline command `[^`]*\\| tee status.txt[^`]*`")
                .containsPattern("policy: decline changes to (/.*/)?NOTES.md")
                .containsPattern("command     COMPLETED: .*ls -la")
                .containsPattern("command     DECLINED: .*tee status.txt")
                .containsPattern("file change DECLINED: (/.*/)?NOTES.md")
                .contains("agent: I listed the files, and tried to record the status and add NOTES.md.")
                .doesNotContain("policy: accept command `/bin/bash -lc 'git");
    }

    @Test
    void consoleApprovalsOnTheFake() {
        consoleApprovalsAcceptsOnlyTheReadOnlyCommand("fake");
        assertThat(output()).contains("backend: fake app-server (testkit, in memory)");
    }

    @Test
    @Tag("real-codex")
    void consoleApprovalsOnTheRealCodex() {
        consoleApprovalsAcceptsOnlyTheReadOnlyCommand("scripted");
        assertThat(output()).contains(realCodexBackendLine()).doesNotContain("fake app-server");
    }

    private void toolsAndStructuredOutputParsesTheRecord(String backend) {
        use(backend);
        ToolsAndStructuredOutput.main(new String[0]);
        assertThat(output()).contains("agent:  Ticket ABC-123 is about checkout failures.")
                .contains("triage: Triage[ticket=ABC-123, severity=high, nextSteps=[reproduce with 101 items, "
                        + "add a regression test]]");
    }

    @Test
    void toolsAndStructuredOutputOnTheFake() {
        toolsAndStructuredOutputParsesTheRecord("fake");
        assertThat(output()).contains("backend: fake app-server (testkit, in memory)");
    }

    @Test
    @Tag("real-codex")
    void toolsAndStructuredOutputOnTheRealCodex() {
        toolsAndStructuredOutputParsesTheRecord("scripted");
        assertThat(output()).contains(realCodexBackendLine()).doesNotContain("fake app-server");
    }

    private void threadHistoryListsNewestFirstPageByPageAndReadsTheTurns(String backend) {
        use(backend);
        ThreadHistory.main(new String[0]);
        String text = output();
        assertThat(text).contains("threads, two per page, newest first:")
                .containsSubsequence("page 1:", "example thread 3", "example thread 2", "page 2:",
                        "example thread 1", "example thread 3:", "COMPLETED", "user:  Question 3",
                        "agent: Answer number 3.")
                .doesNotContain("page 3:");
    }

    @Test
    void threadHistoryOnTheFake() {
        threadHistoryListsNewestFirstPageByPageAndReadsTheTurns("fake");
        assertThat(output()).contains("backend: fake app-server (testkit, in memory)");
    }

    @Test
    @Tag("real-codex")
    void threadHistoryOnTheRealCodex() {
        threadHistoryListsNewestFirstPageByPageAndReadsTheTurns("scripted");
        assertThat(output()).contains(realCodexBackendLine()).doesNotContain("fake app-server");
    }

    /**
     * The default backend is the real codex: without one it fails, saying why and what to do, and runs nothing on
     * the fake in its place.
     */
    @Test
    void theScriptedBackendWithoutACodexIsAClearErrorNotTheFake() {
        use("scripted");
        String configured = System.getProperty("codex.binary");
        System.setProperty("codex.binary", "/nonexistent/codex");
        try {
            assertThatThrownBy(() -> Quickstart.main(new String[0]))
                    .isInstanceOf(CodexBinaryUnavailableException.class)
                    .hasMessage("the scripted backend runs the real codex, and none is available: system property"
                            + " codex.binary names /nonexistent/codex, which is not an executable file. Run with"
                            + " -Dbackend=fake for the testkit's in-memory fake app-server instead.");
        } finally {
            if (configured == null) {
                System.clearProperty("codex.binary");
            } else {
                System.setProperty("codex.binary", configured);
            }
        }
        assertThat(output()).doesNotContain("backend:");
    }
}
