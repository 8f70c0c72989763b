package dev.codexclient.it.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.pool.CodexPool;
import dev.codexclient.pool.MemberStats;
import dev.codexclient.CodexTurn;
import dev.codexclient.pool.PooledThread;
import dev.codexclient.RestartPolicy;
import dev.codexclient.TurnResult;
import dev.codexclient.errors.CodexPoolRejectedException;
import dev.codexclient.errors.CodexServerRestartedException;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.it.RealCodexFixture;
import dev.codexclient.protocol.AskForApproval;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.ModelStep;
import java.io.File;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The chaos run of docs/RELIABILITY.md: 3 real app-servers in a pool, 30 threads running turns against the
 * scripted model, and one random app-server SIGKILLed every few seconds. Not part of the default test run (it takes
 * a minute): {@code mvn -B -q -pl integration-tests -am verify -Dchaos=true -Dtest=RealCodexChaosRun
 * -Dsurefire.failIfNoSpecifiedTests=false} ({@code -Dchaos.seconds=60 -Dchaos.killEverySeconds=4}).
 */
@EnabledIfSystemProperty(named = "chaos", matches = "true")
@Timeout(600)
class RealCodexChaosRun {
    private static final int MEMBERS = 3;
    private static final int THREADS = 30;
    private static final Duration TURN_BOUND = Duration.ofSeconds(90);

    @Test
    void chaos() throws Exception {
        long seconds = Long.getLong("chaos.seconds", 60);
        long killEvery = Long.getLong("chaos.killEverySeconds", 4);
        Set<String> threadsBefore = codexThreadNames();
        int fdsBefore = openFds();
        Set<Long> processesBefore = Leaks.descendants();

        AtomicLong completed = new AtomicLong();
        AtomicLong restartOutcome = new AtomicLong();
        AtomicLong lostCalls = new AtomicLong();
        AtomicLong rejected = new AtomicLong();
        AtomicLong otherFailures = new AtomicLong();
        AtomicLong hung = new AtomicLong();
        AtomicLong duplicateCompletions = new AtomicLong();
        AtomicInteger kills = new AtomicInteger();
        AtomicInteger threadsThatContinued = new AtomicInteger();
        Map<String, Integer> completionsByTurn = new ConcurrentHashMap<>();
        List<String> samples = new java.util.concurrent.CopyOnWriteArrayList<>();

        try (RealCodexFixture codex = new RealCodexFixture()) {
            codex.model.whenAlways(r -> true, ModelStep.reply("ok"));
            CodexPool pool = CodexPool.builder()
                    .spawned(MEMBERS, () -> codex.clientBuilder().restartPolicy(RestartPolicy.builder()
                            .maxAttempts(10).backoff(Duration.ofMillis(100), Duration.ofSeconds(2))
                            .budget(1000, Duration.ofMinutes(10)).build()))
                    .maxTurnsPerMember(10).maxQueuedTurnsPerMember(THREADS)
                    .build();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            try {
                List<PooledThread> threads = new ArrayList<>();
                for (int i = 0; i < THREADS; i++) {
                    threads.add(pool.startThread(codex.threadParams()
                            .approvalPolicy(AskForApproval.Simple.NEVER).build()));
                }
                CountDownLatch done = new CountDownLatch(THREADS);
                for (PooledThread t : threads) {
                    Thread worker = new Thread(() -> {
                        boolean sawRestart = false;
                        boolean continued = false;
                        try {
                            while (System.nanoTime() < deadline) {
                                CodexTurn turn;
                                try {
                                    turn = t.startTurnAsync("turn").get(TURN_BOUND.toSeconds(), TimeUnit.SECONDS);
                                } catch (ExecutionException e) {
                                    Throwable c = e.getCause();
                                    if (c instanceof CodexPoolRejectedException) {
                                        rejected.incrementAndGet();
                                    } else if (c instanceof CodexTransportException) {
                                        lostCalls.incrementAndGet();
                                        sawRestart = true;
                                    } else {
                                        otherFailures.incrementAndGet();
                                        samples.add(String.valueOf(c));
                                    }
                                    continue;
                                } catch (TimeoutException e) {
                                    hung.incrementAndGet();
                                    continue;
                                }
                                turn.onEvent(n -> {
                                    if (n instanceof ServerNotification.TurnCompleted) {
                                        completionsByTurn.merge(turn.id(), 1, Integer::sum);
                                    }
                                });
                                try {
                                    TurnResult r = turn.result().get(TURN_BOUND.toSeconds(), TimeUnit.SECONDS);
                                    if (r.status() == TurnStatus.COMPLETED) {
                                        completed.incrementAndGet();
                                        if (sawRestart) {
                                            continued = true;
                                        }
                                    } else {
                                        otherFailures.incrementAndGet();
                                        samples.add("status " + r.status());
                                    }
                                } catch (ExecutionException e) {
                                    if (e.getCause() instanceof CodexServerRestartedException) {
                                        restartOutcome.incrementAndGet();
                                        sawRestart = true;
                                    } else if (e.getCause() instanceof CodexTransportException) {
                                        lostCalls.incrementAndGet();
                                        sawRestart = true;
                                    } else {
                                        otherFailures.incrementAndGet();
                                        samples.add(String.valueOf(e.getCause()));
                                    }
                                } catch (TimeoutException e) {
                                    hung.incrementAndGet();
                                }
                            }
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        } finally {
                            if (continued) {
                                threadsThatContinued.incrementAndGet();
                            }
                            done.countDown();
                        }
                    }, "chaos-worker");
                    worker.setDaemon(true);
                    worker.start();
                }
                Random random = new Random(42);
                while (System.nanoTime() < deadline) {
                    Thread.sleep(TimeUnit.SECONDS.toMillis(killEvery));
                    List<Long> pids = pool.stats().stream().map(MemberStats::serverPid)
                            .flatMap(java.util.Optional::stream).toList();
                    if (!pids.isEmpty()) {
                        ProcessHandle.of(pids.get(random.nextInt(pids.size()))).ifPresent(p -> {
                            p.descendants().forEach(ProcessHandle::destroyForcibly);
                            p.destroyForcibly();
                            kills.incrementAndGet();
                        });
                    }
                }
                assertThat(done.await(TURN_BOUND.toSeconds() * 2 + 30, TimeUnit.SECONDS)).isTrue();
                assertThat(pool.drain(Duration.ofSeconds(30))).isTrue();
            } finally {
                pool.close();
            }
        }
        duplicateCompletions.set(completionsByTurn.values().stream().filter(n -> n > 1).count());
        // Wind-down of the killed servers' processes and the client threads (bounded).
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        Set<String> leakedThreads;
        Set<Long> leakedProcesses;
        do {
            Thread.sleep(100);
            leakedThreads = codexThreadNames();
            leakedThreads.removeAll(threadsBefore);
            leakedProcesses = Leaks.descendants();
            leakedProcesses.removeAll(processesBefore);
        } while ((!leakedThreads.isEmpty() || !leakedProcesses.isEmpty()) && System.nanoTime() < until);
        int fdsAfter = openFds();

        String report = String.format("chaos: %d s, %d members, %d threads, %d SIGKILLs%n"
                        + "  turns completed: %d; ended with CodexServerRestartedException: %d; "
                        + "calls failed with the lost connection: %d; rejected by the pool: %d; other failures: %d %s%n"
                        + "  threads that completed a turn after a failure: %d of %d%n"
                        + "  hung: %d; duplicate turn/completed: %d%n"
                        + "  after close: client threads %d, child processes %d, fds %d -> %d%n",
                seconds, MEMBERS, THREADS, kills.get(), completed.get(), restartOutcome.get(), lostCalls.get(),
                rejected.get(), otherFailures.get(), samples.stream().limit(3).collect(Collectors.toList()),
                threadsThatContinued.get(), THREADS, hung.get(), duplicateCompletions.get(), leakedThreads.size(),
                leakedProcesses.size(), fdsBefore, fdsAfter);
        System.out.print(report);
        assertThat(hung).hasValue(0);
        assertThat(duplicateCompletions).hasValue(0);
        assertThat(leakedThreads).isEmpty();
        assertThat(leakedProcesses).isEmpty();
        assertThat(otherFailures).as(Objects.toString(samples)).hasValue(0);
    }

    private static Set<String> codexThreadNames() {
        return new java.util.HashSet<>(Leaks.codexThreads().values());
    }

    private static int openFds() {
        String[] fds = new File("/proc/self/fd").list();
        return fds == null ? -1 : fds.length;
    }
}
