package dev.codexclient.examples;

import dev.codexclient.ApprovalPolicy;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.TurnResult;
import dev.codexclient.protocol.AskForApproval;
import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.testkit.ModelStep;
import java.time.Duration;

/**
 * Start a thread, run one turn, print the agent's text live as it streams, then the outcome and token usage.
 *
 * <pre>
 * mvn -B -q install -DskipTests &amp;&amp; mvn -B -q -pl examples exec:java
 * mvn -B -q -pl examples exec:java -Dbackend=live -Dexec.args="Explain this repository"
 * </pre>
 */
public final class Quickstart {
    private Quickstart() {
    }

    public static void main(String[] args) {
        Utf8Console.install();
        String prompt = args.length > 0 ? String.join(" ", args) : "Look around and say hello.";
        try (Backend backend = Backend.open(
                model -> model.enqueue(
                        Backend.shell("printf 'src\\ntests\\nREADME.md\\n'"),
                        ModelStep.reply("Hello! This workspace has a src and a tests directory and a README. "
                                + "Nothing else needed doing — ¡hasta luego! 👋").withUsage(1_250, 64)),
                fake -> fake.onTurnStart(turn -> turn
                        .commandExecution("ls", "src\ntests\nREADME.md\n", 0)
                        .agentMessageDeltas("Hello! ", "This workspace has a src and a tests directory ",
                                "and a README. 👋")
                        .tokenUsage(1_250, 64)
                        .completed()));
             CodexClient codex = backend.client()
                     .approvals(ApprovalPolicy.declineAll())          // the default, said out loud
                     .build()) {

            System.out.println("backend: " + backend.name);
            System.out.println("server:  " + codex.serverInfo().userAgent().orElse("(not reported)"));

            CodexThread thread = codex.startThread(backend.thread(AskForApproval.Simple.ON_REQUEST).build());
            CodexTurn turn = thread.startTurn(prompt);
            turn.onItemCompleted(item -> {
                if (item instanceof ThreadItem.CommandExecution c) {
                    System.out.println("$ " + c.command() + "  (exit " + c.exitCode() + ")");
                }
            });
            turn.onAgentMessageDelta(delta -> {
                System.out.print(delta.delta());
                System.out.flush();
            });

            TurnResult result = turn.await(Duration.ofMinutes(5));
            System.out.println();
            System.out.println("status:  " + result.status());
            result.usage().ifPresent(u -> System.out.println("tokens:  " + u.last().totalTokens() + " this turn ("
                    + u.last().inputTokens() + " in, " + u.last().outputTokens() + " out)"));
            result.error().ifPresent(e -> System.out.println("error:   " + e.message()));
        }
    }
}
