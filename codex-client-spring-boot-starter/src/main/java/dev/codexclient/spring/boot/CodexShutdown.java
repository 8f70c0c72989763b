package dev.codexclient.spring.boot;

import dev.codexclient.CodexClient;
import java.time.Duration;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Ends the client's turns together with the web server's graceful shutdown, not after it. Spring stops the web
 * server (waiting up to {@code spring.lifecycle.timeout-per-shutdown-phase}, 30 s, for requests in flight) before
 * it destroys beans, so a streaming response whose turn runs on (a Server-Sent Events stream, a slow model) would
 * hold the shutdown for the whole 30 s and the client would only be closed after. This runs in the graceful
 * shutdown's phase, at the same time: it lets running turns finish for {@code codex.shutdown-grace-period} (10 s),
 * then closes the client, which ends what still runs (turns fail, streams get their error event) so the requests
 * waiting on them complete and the server's graceful shutdown ends.
 */
final class CodexShutdown implements SmartLifecycle {
    private static final Logger LOG = LoggerFactory.getLogger(CodexShutdown.class);
    /** {@code WebServerGracefulShutdownLifecycle}'s phase: stopped together with it. */
    static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1024;

    private final Supplier<CodexClient> client;
    private final CodexConnectionMonitor monitor;
    private final Duration grace;
    private volatile boolean running;

    /**
     * @param client  the client when it was made (a lazy one may not be), else null
     * @param monitor counts the running turns
     * @param grace   how long running turns may go on once the shutdown began
     */
    CodexShutdown(Supplier<CodexClient> client, CodexConnectionMonitor monitor, Duration grace) {
        this.client = client;
        this.monitor = monitor;
        this.grace = grace;
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        closeAfterGrace();
    }

    @Override
    public void stop(Runnable callback) {
        // Off the lifecycle thread, so the other beans of the phase (the web server) stop at the same time.
        Thread closer = new Thread(() -> {
            try {
                closeAfterGrace();
            } finally {
                callback.run();
            }
        }, "codex-shutdown");
        closer.setDaemon(true);
        closer.start();
    }

    private void closeAfterGrace() {
        running = false;
        CodexClient c = client.get();
        if (c == null || c.isClosed()) {
            return;
        }
        int running = monitor.runningTurns();
        if (running > 0) {
            LOG.info("codex: waiting up to {} (codex.shutdown-grace-period) for {} running turn(s) before closing the "
                    + "client", grace, running);
        }
        try {
            if (!monitor.awaitNoRunningTurns(grace)) {
                LOG.info("codex: {} turn(s) still running after codex.shutdown-grace-period ({}); closing the client",
                        monitor.runningTurns(), grace);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        c.close();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
