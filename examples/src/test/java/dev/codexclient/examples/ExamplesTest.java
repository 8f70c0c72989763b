package dev.codexclient.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;

/** Every example runs end to end against the fake backend and prints what it promises. */
@Isolated
@Timeout(60)
class ExamplesTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private PrintStream original;

    @BeforeEach
    void capture() {
        original = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setProperty("backend", "fake");
    }

    @AfterEach
    void restore() {
        System.setOut(original);
        System.clearProperty("backend");
    }

    private String output() {
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void quickstartStreamsTextAndReportsUsage() {
        Quickstart.main(new String[0]);
        assertThat(output()).contains("backend: fake app-server")
                .contains("Hello! This workspace has a src and a tests directory and a README.")
                .contains("status:  COMPLETED")
                .contains("tokens:  1314 this turn (1250 in, 64 out)");
    }

    @Test
    void consoleApprovalsDecidesByPolicyWithoutATerminal() {
        ConsoleApprovals.main(new String[0]);
        assertThat(output()).contains("deciding by policy").contains("agent: I tried to record the status");
    }

    @Test
    void toolsAndStructuredOutputParsesTheRecord() {
        ToolsAndStructuredOutput.main(new String[0]);
        assertThat(output()).contains("agent:  Ticket ABC-123 is about checkout failures.")
                .contains("triage: Triage[ticket=ABC-123, severity=high, nextSteps=[reproduce with 101 items, "
                        + "add a regression test]]");
    }

    @Test
    void threadHistoryListsAndReads() {
        ThreadHistory.main(new String[0]);
        assertThat(output()).contains("threads, two per page:").contains("example thread 3");
    }

    @Test
    void readOnlyCommandsAreRecognised() {
        assertThat(ConsoleApprovals.isReadOnly("/bin/bash -c 'ls -la'")).isTrue();
        assertThat(ConsoleApprovals.isReadOnly("rm -rf /")).isFalse();
        assertThat(ConsoleApprovals.isReadOnly(null)).isFalse();
    }
}
