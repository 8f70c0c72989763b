package dev.codexclient.examples;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.DynamicTool;
import dev.codexclient.ToolResult;
import dev.codexclient.TurnResult;
import dev.codexclient.protocol.AskForApproval;
import dev.codexclient.testkit.ModelStep;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A dynamic tool defined from a Java record (its JSON schema is derived from the record), and structured output
 * parsed into another record.
 *
 * <pre>mvn -B -q -pl examples exec:java -Dexample=ToolsAndStructuredOutput</pre>
 */
public final class ToolsAndStructuredOutput {
    private ToolsAndStructuredOutput() {
    }

    /** The tool's arguments; the model sees a schema with a required string {@code id}. */
    record LookupTicket(String id) {
    }

    /** The shape the agent must answer in. */
    record Triage(String ticket, String severity, List<String> nextSteps) {
    }

    private static final Map<String, String> TICKETS = Map.of(
            "ABC-123", "Checkout fails with HTTP 500 for carts over 100 items; 37 reports since Monday.");

    public static void main(String[] args) {
        Utf8Console.install();
        DynamicTool lookup = DynamicTool.of("lookup_ticket", "Look up a support ticket by id", LookupTicket.class,
                t -> TICKETS.containsKey(t.id()) ? ToolResult.text(TICKETS.get(t.id()))
                        : ToolResult.failure("no ticket " + t.id()));
        try (Backend backend = Backend.open(
                model -> model.enqueue(
                        ModelStep.callTool("lookup_ticket", Map.of("id", "ABC-123")),
                        ModelStep.reply("Ticket ABC-123 is about checkout failures."),
                        ModelStep.json(Map.of("ticket", "ABC-123", "severity", "high",
                                "nextSteps", List.of("reproduce with 101 items", "add a regression test")))),
                fake -> fake
                        .enqueueTurn(turn -> turn.toolCall("lookup_ticket", Map.of("id", "ABC-123"), reply -> { })
                                .agentMessage("Ticket ABC-123 is about checkout failures.").completed())
                        .enqueueTurn(turn -> turn.agentMessage("{\"ticket\":\"ABC-123\",\"severity\":\"high\","
                                + "\"nextSteps\":[\"reproduce with 101 items\",\"add a regression test\"]}")
                                .completed()));
             CodexClient codex = backend.client().experimentalApi(true).tool(lookup).build()) {
            System.out.println("backend: " + backend.name);
            CodexThread thread = codex.startThread(backend.thread(AskForApproval.Simple.ON_REQUEST).build());

            TurnResult looked = thread.startTurn("What is ticket ABC-123 about?").await(Duration.ofMinutes(5));
            System.out.println("agent:  " + looked.finalText());

            Triage triage = thread.startTurn("Triage ticket ABC-123.", Triage.class).await(Duration.ofMinutes(5));
            System.out.println("triage: " + triage);
        }
    }
}
