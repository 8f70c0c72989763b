package dev.codexclient.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.CodexClientBuilder;
import dev.codexclient.CodexClient;
import dev.codexclient.RetryPolicy;
import dev.codexclient.ClientProbe;
import dev.codexclient.internal.time.ManualScheduler;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/** Shared helpers for the client tests against the fake app-server. */
final class ClientTestSupport {
    static final Duration WAIT = Duration.ofSeconds(5);

    private ClientTestSupport() {
    }

    /** A builder connected in memory to {@code fake}, with short timeouts so a hang shows up as a failure. */
    static CodexClientBuilder inMemory(FakeCodexAppServer fake) {
        return CodexClient.builder()
                .transport(fake.connectInMemory())
                .requestTimeout(Duration.ofSeconds(10))
                .initializeTimeout(Duration.ofSeconds(10))
                .retryPolicy(new RetryPolicy(4, Duration.ofMillis(5), Duration.ofMillis(20), Duration.ofSeconds(5)));
    }

    /**
     * The builder with a manual clock: request deadlines, backoff, turn deadlines, watchdogs, grace periods and
     * timed waits run when the test advances {@code clock}, on the advancing thread.
     */
    static CodexClientBuilder withClock(CodexClientBuilder builder, ManualScheduler clock) {
        return ClientProbe.useScheduler(builder, clock);
    }

    /** A builder that spawns the fake as a child process speaking over real stdio. */
    static CodexClientBuilder childProcess(FakeCodexAppServer fake) {
        return CodexClient.builder()
                .command(fake.childProcessCommand())
                .requestTimeout(Duration.ofSeconds(10))
                .initializeTimeout(Duration.ofSeconds(20));
    }

    /** Waits until {@code condition} holds, polling; fails with {@code what} after {@code timeout}. */
    static void awaitCondition(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for: " + what);
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for: " + what, e);
            }
        }
    }

    static void awaitCondition(String what, BooleanSupplier condition) {
        awaitCondition(what, WAIT, condition);
    }

    /** The failure of a future that must fail within {@code timeout}, unwrapped. */
    static Throwable failureOf(CompletableFuture<?> future, Duration timeout) {
        try {
            Object value = future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            throw new AssertionError("expected a failure but got " + value);
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (TimeoutException e) {
            throw new AssertionError("the future did not complete within " + timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    static <T> T get(CompletableFuture<T> future) {
        try {
            return future.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError("the future failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("the future did not complete within " + WAIT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** How many client requests await a response (diagnostics of the internal connection). */
    static int pendingRequests(CodexClient client) {
        return ClientProbe.pendingRequests(client);
    }

    /** How many server requests the client is still handling. */
    static int inflightServerRequests(CodexClient client) {
        return ClientProbe.inflightServerRequests(client);
    }

    /**
     * Names of live threads whose name starts with {@code codex-}, without the pooled ones every client (or fake)
     * shares and that outlive each of them ({@code codex-shared-}), which must be within their ceilings.
     */
    static Set<String> codexThreads() {
        SharedThreadCeilings.assertWithinCeilings();
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .map(Thread::getName)
                .filter(n -> n.startsWith("codex-") && !SharedThreadCeilings.isShared(n))
                .collect(Collectors.toSet());
    }

    /** Number of open file descriptors of this JVM (Linux). */
    static int openFileDescriptors() {
        String[] fds = new File("/proc/self/fd").list();
        return fds == null ? -1 : fds.length;
    }

    /** The client's response to the server request with this id, among what the fake received, if any. */
    static JsonNode responseTo(FakeCodexAppServer fake, String id) {
        return fake.receivedMessages().stream()
                .filter(m -> !m.has("method") && m.has("id") && m.get("id").asText().equals(id))
                .findFirst().orElse(null);
    }

    static void assertNoStackTrace(String text) {
        assertThat(text).doesNotContain("\tat ").doesNotContain("at dev.codexclient").doesNotContain(".java:");
    }

    /** Runs {@code body} while copying what is written to {@code System.err} (slf4j-simple's output). */
    static String captureStderr(Runnable body) {
        PrintStream original = System.err;
        ByteArrayOutputStream copy = new ByteArrayOutputStream();
        OutputStream tee = new OutputStream() {
            @Override
            public synchronized void write(int b) {
                original.write(b);
                copy.write(b);
            }

            @Override
            public synchronized void write(byte[] b, int off, int len) {
                original.write(b, off, len);
                copy.write(b, off, len);
            }
        };
        System.setErr(new PrintStream(tee, true, StandardCharsets.UTF_8));
        try {
            body.run();
        } finally {
            System.setErr(original);
        }
        synchronized (tee) {
            return copy.toString(StandardCharsets.UTF_8);
        }
    }
}
