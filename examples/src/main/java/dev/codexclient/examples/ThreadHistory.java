package dev.codexclient.examples;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.protocol.AskForApproval;
import dev.codexclient.protocol.ThreadInfo;
import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.protocol.ThreadListParams;
import dev.codexclient.protocol.ThreadListResponse;
import dev.codexclient.protocol.Turn;
import dev.codexclient.protocol.UserInput;
import dev.codexclient.testkit.ModelStep;
import java.time.Duration;
import java.time.Instant;
import java.util.stream.Collectors;

/**
 * Thread history: list threads page by page (each page one {@code thread/list} call, following {@code nextCursor})
 * and print one with its turns.
 *
 * <pre>mvn -B -q -pl examples exec:java -Dexample=ThreadHistory</pre>
 */
public final class ThreadHistory {
    private ThreadHistory() {
    }

    public static void main(String[] args) {
        Utf8Console.install();
        try (Backend backend = Backend.open(
                model -> {
                    for (int i = 1; i <= 3; i++) {
                        model.enqueue(ModelStep.reply("Answer number " + i + "."));
                    }
                },
                fake -> {
                    for (int i = 1; i <= 3; i++) {
                        String answer = "Answer number " + i + ".";
                        fake.enqueueTurn(turn -> turn.agentMessage(answer).completed());
                    }
                });
             CodexClient codex = backend.client().build()) {
            System.out.println("backend: " + backend.name);
            // Make some history first, so there is something to list.
            CodexThread last = null;
            for (int i = 1; i <= 3; i++) {
                last = codex.startThread(backend.thread(AskForApproval.Simple.ON_REQUEST).build());
                last.startTurn("Question " + i).await(Duration.ofMinutes(2));
                last.setName("example thread " + i);
            }

            // One thread/list call per page, newest first, following nextCursor. codex.listThreads(params) does the
            // same behind an Iterable when the page breaks do not matter.
            System.out.println("threads, two per page, newest first:");
            String cursor = null;
            int page = 0;
            do {
                ThreadListResponse response = codex.rpc().threadList(ThreadListParams.builder().limit(2L)
                        .cursor(cursor).build()).join();
                System.out.println("  page " + (++page) + ":");
                for (ThreadInfo t : response.data()) {
                    System.out.println("    " + t.id() + "  " + Instant.ofEpochSecond(t.createdAt()) + "  "
                            + (t.name() == null ? t.preview() : t.name()));
                }
                cursor = response.nextCursor();
            } while (cursor != null && !cursor.isEmpty());

            ThreadInfo full = last.read();
            System.out.println("\n" + (full.name() == null ? full.id() : full.name()) + ":");
            for (Turn turn : full.turns()) {
                System.out.println("  turn " + turn.id() + " " + turn.status());
                for (ThreadItem item : turn.items()) {
                    if (item instanceof ThreadItem.UserMessage u) {
                        System.out.println("    user:  " + u.content().stream()
                                .map(c -> c instanceof UserInput.Text t ? t.text() : "[" + c.type() + "]")
                                .collect(Collectors.joining(" ")));
                    } else if (item instanceof ThreadItem.AgentMessage a) {
                        System.out.println("    agent: " + a.text());
                    }
                }
            }
        }
    }
}
