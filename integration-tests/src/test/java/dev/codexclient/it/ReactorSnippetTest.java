package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.WAIT;
import static dev.codexclient.it.ClientTestSupport.inMemory;
import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.errors.CodexTurnFailedException;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.adapter.JdkFlowAdapter;
import reactor.core.publisher.Flux;

/** The README's Reactor snippet, compiled and run against the fake app-server. */
@Timeout(60)
class ReactorSnippetTest {

    @Test
    void aTurnStreamsThroughFluxWithLimitRate() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessage("one two three four five six seven eight nine ten").completed());
            try (CodexClient client = inMemory(fake).build()) {
                CodexThread thread = client.startThread();
                CodexTurn turn = thread.startTurn("count to ten");
                List<Long> requests = new CopyOnWriteArrayList<>();

                // --- README: Reactive streams (Flow, Reactor, Kotlin) ---
                Flux<ServerNotification> events = JdkFlowAdapter.flowPublisherToFlux(turn.publisher());
                String text = events
                        .doOnRequest(requests::add)                 // (not in the README: what limitRate asks for)
                        .limitRate(4)                               // request 4, then 3 at a time
                        .ofType(ServerNotification.ItemAgentMessageDelta.class)
                        .map(d -> d.params().delta())
                        .reduce("", String::concat)
                        .block(WAIT);
                // --- end ---

                assertThat(text).isEqualTo("one two three four five six seven eight nine ten");
                assertThat(requests).isNotEmpty().allMatch(n -> n <= 4);
                assertThat(turn.result()).isDone();
            }
        }
    }

    @Test
    void aFailedTurnSurfacesAsTheFluxError() throws Exception {
        try (FakeCodexAppServer fake = new FakeCodexAppServer()) {
            fake.onTurnStart(t -> t.agentMessage("partial").failed("context window exceeded", "contextWindowExceeded"));
            try (CodexClient client = inMemory(fake).build()) {
                CodexTurn turn = client.startThread().startTurn("go");
                List<ServerNotification> seen = new CopyOnWriteArrayList<>();
                Throwable error = JdkFlowAdapter.flowPublisherToFlux(turn.publisher())
                        .limitRate(2)
                        .doOnNext(seen::add)
                        .then()
                        .materialize()
                        .block(WAIT)
                        .getThrowable();
                assertThat(error).isInstanceOf(CodexTurnFailedException.class);
                assertThat(seen.get(seen.size() - 1)).isInstanceOf(ServerNotification.TurnCompleted.class);
            }
        }
    }
}
