package dev.codexclient.examples;

import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.ApprovalRequest;
import dev.codexclient.CodexClient;
import dev.codexclient.TurnResult;
import dev.codexclient.protocol.AskForApproval;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.testkit.ModelStep;
import java.io.BufferedReader;
import java.io.Console;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Approvals on the console: asks y/n for each command and file change when a terminal is attached, and decides by a
 * policy otherwise: commands that are provably read-only ({@link ReadOnlyCommands}) yes, everything else no.
 *
 * <pre>mvn -B -q -pl examples exec:java -Dexample=ConsoleApprovals</pre>
 */
public final class ConsoleApprovals {
    private ConsoleApprovals() {
    }

    /**
     * The policy without a terminal. Accepting a command runs it in the workspace, so the policy accepts only what it
     * can prove harmless and declines the rest, file changes included.
     */
    static ApprovalDecision decideByPolicy(ApprovalRequest request) {
        return request instanceof ApprovalRequest.Command c && ReadOnlyCommands.isReadOnly(c.params().command())
                ? ApprovalDecision.ACCEPT : ApprovalDecision.DECLINE;
    }

    /**
     * Asks on the terminal; without one, decides by {@link #decideByPolicy} and says what it decided. Both decide
     * synchronously, so they are wrapped with {@code ApprovalPolicy.sync}: the client runs them on a callback thread,
     * where waiting for the person at the terminal blocks nothing else.
     */
    static ApprovalPolicy<ApprovalRequest> consoleOrPolicy(FileChanges fileChanges) {
        Console console = System.console();
        if (console == null) {
            System.out.println("(no terminal attached: deciding by policy — provably read-only commands yes, "
                    + "everything else no)");
            return ApprovalPolicy.sync(request -> {
                ApprovalDecision decision = decideByPolicy(request);
                System.out.println("policy: " + (decision.equals(ApprovalDecision.ACCEPT) ? "accept " : "decline ")
                        + describe(request, fileChanges));
                return decision;
            });
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        return ApprovalPolicy.sync(request -> {
            String what = describe(request, fileChanges);
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

    /** What is asked, in the words a person decides on: the command and where it runs, or the files to change. */
    static String describe(ApprovalRequest request, FileChanges fileChanges) {
        if (request instanceof ApprovalRequest.Command c) {
            return "command `" + c.params().command() + "`"
                    + (c.params().cwd() == null ? "" : " in " + c.params().cwd())
                    + (c.params().reason() == null ? "" : " (" + c.params().reason() + ")");
        }
        if (request instanceof ApprovalRequest.FileChange f) {
            List<String> paths = fileChanges.paths(f.params().itemId());
            return "changes to " + (paths.isEmpty() ? "the files of item " + f.params().itemId()
                    : String.join(", ", paths))
                    + (f.params().reason() == null ? "" : " (" + f.params().reason() + ")");
        }
        if (request instanceof ApprovalRequest.LegacyPatch p) {
            return "changes to " + String.join(", ", p.params().fileChanges().keySet());
        }
        return request.getClass().getSimpleName();
    }

    /**
     * The paths of each file change, from its {@code item/started} notification: a file-change approval names only
     * the item, and codex announces the item (with its paths) just before it asks.
     */
    static final class FileChanges implements Consumer<ServerNotification> {
        private final Map<String, CompletableFuture<List<String>>> paths = new ConcurrentHashMap<>();

        @Override
        public void accept(ServerNotification notification) {
            if (notification instanceof ServerNotification.ItemStarted started
                    && started.params().item() instanceof ThreadItem.FileChange change) {
                future(change.id()).complete(change.changes().stream().map(c -> c.path()).toList());
            }
        }

        /**
         * The paths of the item, waiting briefly for its notification, which is delivered on another thread than
         * the approval; empty when it does not come.
         */
        List<String> paths(String itemId) {
            try {
                return future(itemId).get(2, TimeUnit.SECONDS);
            } catch (TimeoutException | ExecutionException e) {
                return List.of();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return List.of();
            }
        }

        private CompletableFuture<List<String>> future(String itemId) {
            return paths.computeIfAbsent(itemId, id -> new CompletableFuture<>());
        }
    }

    public static void main(String[] args) {
        Utf8Console.install();
        FileChanges fileChanges = new FileChanges();
        try (Backend backend = Backend.open(
                model -> model.enqueue(
                        Backend.shell("ls -la"),
                        Backend.shell("git status 2>/dev/null | tee status.txt || ls | tee status.txt"),
                        ModelStep.applyPatch(ModelStep.addFilePatch("NOTES.md", "# Notes\nRemember to write tests.\n")),
                        ModelStep.reply("I listed the files, and tried to record the status and add NOTES.md.")),
                fake -> fake.onTurnStart(turn -> turn
                        .commandApproval("/bin/bash -lc 'ls -la'", reply -> { })
                        .commandApproval("/bin/bash -lc 'git status 2>/dev/null | tee status.txt || ls | tee "
                                + "status.txt'", reply -> { })
                        .fileChangeApproval("NOTES.md", "+# Notes\n", reply -> { })
                        .agentMessage("I listed the files, and tried to record the status and add NOTES.md.")
                        .completed()));
             CodexClient codex = backend.client().onNotification(fileChanges)
                     .approvals(consoleOrPolicy(fileChanges)).build()) {
            System.out.println("backend: " + backend.name);
            TurnResult result = codex.startThread(backend.thread(AskForApproval.UNTRUSTED).build())
                    .startTurn(args.length > 0 ? String.join(" ", args)
                            : "List the files, record the git status and add notes.")
                    .await(Duration.ofMinutes(5));
            for (ThreadItem item : result.items()) {
                if (item instanceof ThreadItem.CommandExecution c) {
                    System.out.println("command     " + c.status() + ": " + c.command());
                } else if (item instanceof ThreadItem.FileChange f) {
                    System.out.println("file change " + f.status() + ": " + String.join(", ",
                            f.changes().stream().map(change -> change.path()).toList()));
                }
            }
            System.out.println("agent: " + result.finalText());
        }
    }
}
