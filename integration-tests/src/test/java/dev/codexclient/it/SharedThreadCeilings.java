package dev.codexclient.it;

import dev.codexclient.internal.rpc.CallbackPool;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The threads of the JVM-wide pools every client and fake shares ({@code codex-shared-}): no leak of any one test,
 * as long as each pool stays within its ceiling. Leak checks leave them out through {@link #isShared} and bound
 * them with {@link #assertWithinCeilings()}.
 */
public final class SharedThreadCeilings {
    /** Name prefix of each shared pool's threads, and the most it may have. */
    private static final Map<String, Integer> CEILINGS = Map.of(
            "codex-shared-timer", 1,
            "codex-shared-callback-", CallbackPool.CALLBACK_THREADS,
            "codex-shared-handler-", CallbackPool.HANDLER_THREADS,
            // The fakes' own workers (test scaffolding): one per connection or scripted turn at a time.
            "codex-shared-fake-worker-", Integer.MAX_VALUE);

    private SharedThreadCeilings() {
    }

    /** Whether {@code name} is a thread of one of the shared pools (an unknown {@code codex-shared-} name is not). */
    public static boolean isShared(String name) {
        return CEILINGS.keySet().stream().anyMatch(name::startsWith);
    }

    /**
     * Fails when a shared pool has more live threads than its ceiling. A thread past its idle minute has left its
     * pool a moment before it ends, so an excess is given a second to go.
     */
    public static void assertWithinCeilings() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        while (true) {
            String excess = excess();
            if (excess.isEmpty()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("shared pools over their ceilings:" + excess);
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }
    }

    private static String excess() {
        Map<String, Long> counts = Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .map(Thread::getName)
                .flatMap(name -> CEILINGS.keySet().stream().filter(name::startsWith))
                .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
        StringBuilder sb = new StringBuilder();
        counts.forEach((prefix, count) -> {
            if (count > CEILINGS.get(prefix)) {
                sb.append(' ').append(count).append(" threads ").append(prefix).append("* (ceiling ")
                        .append(CEILINGS.get(prefix)).append(')');
            }
        });
        return sb.toString();
    }
}
