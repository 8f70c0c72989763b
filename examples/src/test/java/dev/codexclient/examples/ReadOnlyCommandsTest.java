package dev.codexclient.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalRequest;
import dev.codexclient.protocol.CommandExecutionRequestApprovalParams;
import dev.codexclient.protocol.FileChangeRequestApprovalParams;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class ReadOnlyCommandsTest {

    @ParameterizedTest
    @ValueSource(strings = {
            "ls",
            "ls -la",
            "pwd",
            "cat README.md",
            "head -n 5 notes/todo.txt",
            "wc -l src/Main.java",
            "grep -rn TODO src",
            "/bin/bash -lc 'ls -la'",
            "/bin/bash -c 'cat README.md'",
            "/bin/bash -c \"ls -la src\"",
            "bash -lc 'pwd'",
            "/bin/sh -c 'wc -c a.txt'",
    })
    void acceptsPlainCommandsOfReadingPrograms(String command) {
        assertThat(ReadOnlyCommands.isReadOnly(command)).isTrue();
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {
            // pipes, lists and background jobs
            "git status | tee status.txt",
            "/bin/bash -lc 'git status 2>/dev/null | tee status.txt || ls | tee status.txt'",
            "ls | tee listing.txt",
            "ls; rm -rf ~",
            "ls && rm -rf build",
            "ls || touch x",
            "ls & rm x",
            // redirections
            "cat a > b",
            "cat a >> b",
            "ls 2>/dev/null",
            "cat < /etc/passwd",
            "/bin/bash -lc 'cat a > b'",
            // substitutions and expansions
            "cat $(echo /etc/passwd)",
            "cat `rm -rf x`",
            "cat $HOME/.ssh/id_rsa",
            "cat ${HOME}",
            "/bin/bash -c \"cat $(touch pwned)\"",
            "/bin/bash -c \"cat `touch pwned`\"",
            "ls *",
            "cat ~/.netrc",
            // line breaks, quotes and escapes
            "ls\nrm -rf x",
            "/bin/bash -lc 'ls\nrm -rf x'",
            "cat 'a b'",
            "/bin/bash -lc 'ls' ; rm -rf x",
            "/bin/bash -lc 'ls'\"; rm x\"",
            "/bin/bash -c \"ls\\\"; rm x\"",
            "/bin/bash -lc ls",
            // programs that are not on the list, or that merely start with an allowed name
            "git status",
            "git diff --output=patch.txt",
            "lsblk",
            "ls-evil",
            "catalog",
            "sort -o out.txt in.txt",
            "find . -delete",
            "tail -f log",
            "rm -rf /",
            "touch x",
            "/bin/ls",
            "./ls",
            "FOO=bar ls",
            "env ls",
            "/bin/bash -lc '/bin/bash -lc rm'",
            "/bin/bash -lc 'bash -c ls'",
            "python3 -c print",
    })
    void declinesEverythingElse(String command) {
        assertThat(ReadOnlyCommands.isReadOnly(command)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"ls -la", "git status | tee status.txt"})
    void thePolicyAcceptsACommandExactlyWhenItIsReadOnly(String command) {
        ApprovalRequest request = new ApprovalRequest.Command(CommandExecutionRequestApprovalParams.builder()
                .threadId("t").turnId("u").itemId("i").startedAtMs(0L).command(command).build());
        assertThat(ConsoleApprovals.decideByPolicy(request)).isEqualTo(ReadOnlyCommands.isReadOnly(command)
                ? ApprovalDecision.ACCEPT : ApprovalDecision.DECLINE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"NOTES.md"})
    void thePolicyDeclinesFileChanges(String itemId) {
        ApprovalRequest request = new ApprovalRequest.FileChange(FileChangeRequestApprovalParams.builder()
                .threadId("t").turnId("u").itemId(itemId).startedAtMs(0L).build());
        assertThat(ConsoleApprovals.decideByPolicy(request)).isEqualTo(ApprovalDecision.DECLINE);
    }
}
