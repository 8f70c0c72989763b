package dev.codexclient.testkit.internal.junit;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestPlan;

/**
 * Names what holds the test JVM's exit. Once the tests ended, the JVM exits: surefire calls {@code System.exit},
 * which runs the shutdown hooks (Spring's closes the application contexts its test context cache still holds, with
 * their web servers' graceful shutdown) and waits for them; a plain launcher waits for the non-daemon threads.
 * Surefire kills a fork whose exit takes 30 s, and writes the fork's threads only to a {@code .dump} file that the
 * build's log does not show. When the exit takes {@value #PATIENCE_SECONDS} s, this prints the stacks of the threads
 * that hold it (the non-daemon ones: the shutdown hooks' threads, and what they wait for, are among them) to the
 * process's standard error, which surefire copies to the build's log: a slow exit is attributed the first time.
 *
 * <p>It costs an exit that is not slow nothing: a shutdown hook that starts a daemon watcher and returns, so it
 * never delays the exit itself. Registered through
 * {@code META-INF/services/org.junit.platform.launcher.TestExecutionListener} in the test resources of a module
 * whose tests leave servers or application contexts for the JVM's exit to close.
 */
public final class SlowExitReport implements TestExecutionListener {
    /** How long the exit may take before the report is printed: well within surefire's 30 s. */
    static final int PATIENCE_SECONDS = 10;

    /** One hook per JVM, however many test plans run in it. */
    private static final AtomicBoolean HOOKED = new AtomicBoolean();

    /** Creates the listener; the JUnit launcher does, through the service loader. */
    public SlowExitReport() {
    }

    @Override
    public void testPlanExecutionFinished(TestPlan testPlan) {
        if (HOOKED.compareAndSet(false, true)) {
            Runtime.getRuntime().addShutdownHook(new Thread(SlowExitReport::watch, "codex-slow-exit-report"));
        }
    }

    /** Runs as a shutdown hook: starts the watcher, a daemon thread, so the exit never waits for it. */
    private static void watch() {
        Thread watcher = new Thread(() -> {
            try {
                // A deadline, not a synchronisation: the report is only printed if the exit is still going on.
                Thread.sleep(Duration.ofSeconds(PATIENCE_SECONDS).toMillis());
            } catch (InterruptedException e) {
                return;
            }
            // The process's own standard error, not System.err: surefire's replacement of System.err forwards
            // nothing once its fork said goodbye, while the process's stderr still reaches the build's log.
            PrintStream err = new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
            err.print(report(Thread.getAllStackTraces(), PATIENCE_SECONDS));
            err.flush();
        }, "codex-slow-exit-watcher");
        watcher.setDaemon(true);
        watcher.start();
    }

    /**
     * The report: every live non-daemon thread with its stack, by name.
     *
     * @param threads the live threads and their stacks
     * @param seconds how long the exit has taken
     * @return the report's text
     */
    static String report(Map<Thread, StackTraceElement[]> threads, int seconds) {
        StringBuilder out = new StringBuilder()
                .append("[slow exit] the test JVM is still exiting after ").append(seconds)
                .append(" s; its non-daemon threads (shutdown hooks among them):").append(System.lineSeparator());
        threads.entrySet().stream()
                .filter(e -> e.getKey().isAlive() && !e.getKey().isDaemon())
                .sorted(Comparator.comparing(e -> e.getKey().getName()))
                .forEach(e -> {
                    Thread t = e.getKey();
                    out.append('"').append(t.getName()).append("\" ").append(t.getState())
                            .append(System.lineSeparator());
                    for (StackTraceElement frame : e.getValue()) {
                        out.append("\tat ").append(frame).append(System.lineSeparator());
                    }
                });
        return out.toString();
    }
}
