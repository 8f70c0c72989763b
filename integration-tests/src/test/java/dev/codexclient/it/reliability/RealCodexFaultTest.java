package dev.codexclient.it.reliability;

import static dev.codexclient.it.reliability.FaultHarness.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.CodexTurn;
import dev.codexclient.TurnResult;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.ClientProbe;
import dev.codexclient.internal.time.ManualScheduler;
import dev.codexclient.it.RealCodexFixture;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.ModelStep;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Faults of the real codex app-server: a SIGKILL mid-turn, and a model that stalls under the turn watchdog. */
@Tag("real-codex")
class RealCodexFaultTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @AfterAll
    static void report() {
        ReliabilityReport.publish();
    }

    @Test
    void codexKilledMidTurn() {
        FaultHarness.run("real codex SIGKILLed mid-turn", f -> {
            try (RealCodexFixture codex = new RealCodexFixture()) {
                codex.model.enqueue(ModelStep.stall(Duration.ofSeconds(30)));
                Set<Long> before = Leaks.descendants();
                List<ServerNotification> events = new CopyOnWriteArrayList<>();
                try (CodexClient client = codex.client(b -> b.onNotification(events::add))) {
                    CodexThread thread = client.startThread(codex.threadParams().build());
                    CodexTurn turn = thread.startTurn("work slowly");
                    await("the turn to run", WAIT, () -> events.stream()
                            .anyMatch(e -> e instanceof ServerNotification.TurnStarted));
                    // codex and whatever it runs (the npm launcher too, when it runs): SIGKILL all, no goodbye.
                    List<ProcessHandle> spawned = ProcessHandle.current().descendants()
                            .filter(p -> !before.contains(p.pid())).collect(Collectors.toList());
                    assertThat(spawned).isNotEmpty();
                    spawned.forEach(ProcessHandle::destroyForcibly);

                    long t0 = System.nanoTime();
                    assertThatThrownBy(() -> turn.await(WAIT)).isInstanceOf(CodexTransportException.class);
                    long noticedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                    assertThatThrownBy(thread::read).isInstanceOf(CodexTransportException.class);
                    assertThat(client.isClosed()).isTrue();
                    f.received(events.size()).outcome("turn + later call -> CodexTransportException, noticed in "
                            + noticedMillis + " ms; " + spawned.size() + " processes killed");
                }
            }
        });
    }

    @Test
    void stalledModelIsInterruptedByTheWatchdog() {
        FaultHarness.run("real codex, stalled model, watchdog 2 s", f -> {
            try (RealCodexFixture codex = new RealCodexFixture()) {
                codex.model.enqueue(ModelStep.stall(Duration.ofSeconds(60)));
                List<ServerNotification> events = new CopyOnWriteArrayList<>();
                ManualScheduler clock = new ManualScheduler();
                try (CodexClient client = codex.client(b -> ClientProbe.useScheduler(b, clock)
                        .turnWatchdog(Duration.ofSeconds(2)).onNotification(events::add))) {
                    CodexTurn turn = client.startThread(codex.threadParams().build()).startTurn("think forever");
                    await("the turn to run", WAIT, () -> events.stream()
                            .anyMatch(e -> e instanceof ServerNotification.ItemCompleted c
                                    && c.params().item() instanceof ThreadItem.UserMessage));
                    // The model holds the turn for 60 s; 2 s of silence on the client's clock later, the
                    // watchdog reads the thread (still running), interrupts it, and codex settles it.
                    clock.advance(Duration.ofMillis(1_999));
                    assertThat(turn.isDone()).isFalse();
                    clock.advance(Duration.ofMillis(1));
                    // Should codex still have spoken while the watchdog read the thread, the watchdog looks again
                    // after another 2 s of silence.
                    for (int round = 0; round < 5 && !turn.isDone(); round++) {
                        try {
                            turn.result().get(10, TimeUnit.SECONDS);
                        } catch (java.util.concurrent.TimeoutException spokeDuringTheRead) {
                            clock.advance(Duration.ofSeconds(2));
                        }
                    }
                    TurnResult r = turn.result().get(30, TimeUnit.SECONDS);
                    assertThat(r.status()).isEqualTo(TurnStatus.INTERRUPTED);
                    assertThat(r.stalled()).isFalse();
                    f.received(events.size()).outcome("INTERRUPTED by the watchdog after 2 s of silence");
                }
            }
        });
    }
}
