package dev.codexclient.it;

import static dev.codexclient.it.ClientTestSupport.inMemory;
import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link CodexThread#deliveringThreadId()}: the thread whose events the calling Java thread delivers, so that code
 * that would block can tell the one place where the wait could never end. A thread's listeners and a client's
 * notification listener see the thread; a Flow subscriber (a lane of its own) and code off the lanes see none.
 */
@ExtendWith(CodexTestExtension.class)
class DeliveringThreadTest {
    private static final Duration WAIT = Duration.ofSeconds(5);

    @Test
    void aThreadsListenersDeliverOnItsLaneAndNothingElseDoes(FakeCodexAppServer fake) throws Exception {
        fake.enqueueTurn(turn -> turn.agentMessage("hello").completed());
        try (CodexClient client = inMemory(fake).build()) {
            List<Optional<String>> inThreadListener = new CopyOnWriteArrayList<>();
            List<Optional<String>> inNotificationListener = new CopyOnWriteArrayList<>();
            List<Optional<String>> inSubscriber = new CopyOnWriteArrayList<>();
            CompletableFuture<Void> subscriberSawCompletion = new CompletableFuture<>();
            client.onNotification(n -> {
                if (n instanceof ServerNotification.TurnCompleted) {
                    inNotificationListener.add(CodexThread.deliveringThreadId());
                }
            });
            CodexThread thread = client.startThread();
            thread.onEvent(n -> inThreadListener.add(CodexThread.deliveringThreadId()));
            thread.publisher().subscribe(new Flow.Subscriber<>() {
                @Override
                public void onSubscribe(Flow.Subscription s) {
                    s.request(Long.MAX_VALUE);
                }

                @Override
                public void onNext(ServerNotification n) {
                    inSubscriber.add(CodexThread.deliveringThreadId());
                    if (n instanceof ServerNotification.TurnCompleted) {
                        subscriberSawCompletion.complete(null);
                    }
                }

                @Override
                public void onError(Throwable t) {
                    subscriberSawCompletion.completeExceptionally(t);
                }

                @Override
                public void onComplete() {
                }
            });

            thread.startTurn("hi").await(WAIT);
            subscriberSawCompletion.get(WAIT.toSeconds(), TimeUnit.SECONDS);

            assertThat(CodexThread.deliveringThreadId()).isEmpty();
            assertThat(inThreadListener).isNotEmpty().containsOnly(Optional.of(thread.id()));
            assertThat(inNotificationListener).containsExactly(Optional.of(thread.id()));
            assertThat(inSubscriber).isNotEmpty().containsOnly(Optional.empty());
        }
    }
}
