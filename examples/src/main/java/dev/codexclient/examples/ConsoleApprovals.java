package dev.codexclient.examples;

import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.ApprovalRequest;
import dev.codexclient.CodexClient;
import dev.codexclient.TurnResult;
import dev.codexclient.protocol.AskForApproval;
import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.testkit.ModelStep;
import java.io.BufferedReader;
import java.io.Console;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Approvals on the console: asks y/n for each command and patch when a terminal is attached, and decides by a
 * policy otherwise (read-only commands yes, everything else no).
 *
 * <pre>mvn -B -q -pl examples exec:java -Dexample=ConsoleApprovals</pre>
 */
public final class ConsoleApprovals {
    private ConsoleApprovals() {
    }

    /**
     * Asks on the terminal; without one, accepts only commands that look read-only. Both decide synchronously, so
     * they are wrapped with {@code ApprovalPolicy.sync}: the client runs them on a callback thread, where waiting for
     * the person at the terminal blocks nothing else.
     */
    static ApprovalPolicy<ApprovalRequest> consoleOrPolicy() {
        Console console = System.console();
        if (console == null) {
            System.out.println("(no terminal attached: deciding by policy — read-only commands yes, others no)");
            return ApprovalPolicy.sync(request -> request instanceof ApprovalRequest.Command c
                    && isReadOnly(c.params().command()) ? ApprovalDecision.ACCEPT : ApprovalDecision.DECLINE);
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        return ApprovalPolicy.sync(request -> {
            String what = describe(request);
            // The policy runs on a callback thread; one question at a time keeps the console readable.
            synchronized (ConsoleApprovals.class) {
                System.out.print("\nAllow " + what + "? [y/N/s(ession)] ");
                System.out.flush();
                String answer = readLine(in);
                return switch (answer.trim().toLowerCase()) {
                    case "y", "yes" -> ApprovalDecision.ACCEPT;
                    case "s", "session" -> ApprovalDecision.ACCEPT_FOR_SESSION;
                    default -> ApprovalDecision.DECLINE;
                };
            }
        });
    }

    private static String readLine(BufferedReader in) {
        try {
            String line = in.readLine();
            return line == null ? "" : line;
        } catch (IOException e) {
            return "";
        }
    }

    static String describe(ApprovalRequest request) {
        if (request instanceof ApprovalRequest.Command c) {
            return "command `" + c.params().command() + "`" + (c.params().reason() == null ? ""
                    : " (" + c.params().reason() + ")");
        }
        if (request instanceof ApprovalRequest.FileChange f) {
            return "file change for item " + f.params().itemId() + (f.params().reason() == null ? ""
                    : " (" + f.params().reason() + ")");
        }
        return request.getClass().getSimpleName();
    }

    static boolean isReadOnly(String command) {
        if (command == null) {
            return false;
        }
        String c = command.replaceFirst("^/bin/(ba)?sh -l?c ", "").replace("\"", "").replace("'", "").trim();
        return c.startsWith("ls") || c.startsWith("cat ") || c.startsWith("git status") || c.startsWith("git diff");
    }

    public static void main(String[] args) {
        try (Backend backend = Backend.open(
                model -> model.enqueue(
                        ModelStep.of(Backend.shell("git status 2>/dev/null | tee status.txt || ls | tee status.txt")),
                        ModelStep.applyPatch(ModelStep.addFilePatch("NOTES.md", "# Notes\nRemember to write tests.\n")),
                        ModelStep.reply("I tried to record the status and add NOTES.md.")),
                fake -> fake.onTurnStart(turn -> turn
                        .commandApproval("ls | tee status.txt", reply -> { })
                        .fileChangeApproval("NOTES.md", "+# Notes\n", reply -> { })
                        .agentMessage("I tried to record the status and add NOTES.md.")
                        .completed()));
             CodexClient codex = backend.client().approvals(consoleOrPolicy()).build()) {
            System.out.println("backend: " + backend.name);
            TurnResult result = codex.startThread(backend.thread(AskForApproval.Simple.UNTRUSTED).build())
                    .startTurn(args.length > 0 ? String.join(" ", args) : "Record the git status and add notes.")
                    .await(Duration.ofMinutes(5));
            for (ThreadItem item : result.items()) {
                if (item instanceof ThreadItem.CommandExecution c) {
                    System.out.println("command     " + c.status() + ": " + c.command());
                } else if (item instanceof ThreadItem.FileChange f) {
                    System.out.println("file change " + f.status() + ": " + f.changes().size() + " file(s)");
                }
            }
            System.out.println("agent: " + result.finalText());
        }
    }
}
