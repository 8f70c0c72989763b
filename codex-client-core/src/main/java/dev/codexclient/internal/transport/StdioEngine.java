package dev.codexclient.internal.transport;

import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.internal.Redactor;
import dev.codexclient.transport.MessageSink;
import dev.codexclient.transport.TransportTermination;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One child process spoken to over stdin/stdout with JSONL framing: the engine behind the public
 * {@code StdioTransport}.
 *
 * <p>Threads: one reader (stdout → sink), one stderr drainer. Shutdown, whoever starts it (the client's
 * {@link #close()}, or the reader seeing end of stream), runs once: close stdin, wait the graceful timeout, then
 * terminate and finally kill the child and every descendant seen while it lived.
 */
public final class StdioEngine {

    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger("dev.codexclient.transport.stdio");
    }


    /**
     * The wait between SIGTERM and SIGKILL: the graceful timeout, within these bounds. Even a close that skips the
     * graceful wait gives codex a second to exit on SIGTERM before it is killed.
     */
    private static final Duration MAX_TERMINATE_PATIENCE = Duration.ofSeconds(2);
    private static final Duration MIN_TERMINATE_PATIENCE = Duration.ofSeconds(1);
    /** How long end of stream waits for the exit code, and close waits for the threads. */
    private static final Duration EXIT_CODE_WAIT = Duration.ofSeconds(2);
    private static final Duration THREAD_JOIN = Duration.ofSeconds(2);
    private static final Duration STDIN_LOCK_WAIT = Duration.ofMillis(250);
    /** How long a failed write waits for the child to exit before reporting the write error itself. */
    private static final Duration WRITE_FAILURE_EXIT_WAIT = Duration.ofMillis(500);

    /** Launchers already reported as kept, so that a pool or a restarting client says it once per launcher. */
    private static final Set<Path> KEPT_LAUNCHERS = ConcurrentHashMap.newKeySet();

    /**
     * What to run and how.
     *
     * @param stdout            reads the child's stdout into messages (the transport's framer, with its line cap)
     * @param bypassNpmLauncher whether to run the native codex in place of the npm launcher ({@link NpmLauncher})
     */
    public record Config(String executable, List<String> args, Optional<Path> workingDirectory,
                         Map<String, String> environmentAdditions, Set<String> environmentRemovals,
                         StreamReader stdout, Duration closeTimeout, int stderrTailLines,
                         int stderrTailBytes, Redactor redactor, String howToFix, boolean bypassNpmLauncher) {
        public Config {
            args = List.copyOf(args);
            environmentAdditions = Map.copyOf(environmentAdditions);
            environmentRemovals = Set.copyOf(environmentRemovals);
        }
    }

    private enum State { NEW, STARTED, CLOSED }

    private final Config config;
    private final StderrTail tail;
    private final ReentrantLock writeLock = new ReentrantLock();
    private final Object lifecycle = new Object();
    private final Object shutdownLock = new Object();

    private State state = State.NEW;
    private volatile boolean closeRequested;
    /** The graceful wait of the close that was asked for; read by the reader when it ends the child itself. */
    private volatile Duration closeGrace;
    private boolean shutdownDone;

    private Process process;
    private OutputStream stdin;
    private Thread reader;
    private Thread stderrThread;
    private GuardedSink sink;
    private volatile String description;

    public StdioEngine(Config config) {
        this.config = config;
        this.tail = new StderrTail(config.stderrTailLines(), config.stderrTailBytes(), config.redactor());
        this.description = "stdio: " + commandLine(config.executable());
    }

    /** Spawns the child and starts the threads. */
    public void start(MessageSink target) {
        synchronized (lifecycle) {
            if (state != State.NEW) {
                throw new IllegalStateException("transport already " + (state == State.STARTED ? "started" : "closed"));
            }
            ProcessBuilder pb = new ProcessBuilder();
            Map<String, String> env = pb.environment();
            for (String key : config.environmentRemovals()) {
                env.remove(key);
            }
            env.putAll(config.environmentAdditions());
            config.workingDirectory().ifPresent(dir -> pb.directory(dir.toFile()));
            Path binary;
            try {
                binary = ExecutableResolver.resolve(config.executable(), env, config.howToFix());
            } catch (CodexTransportException e) {
                state = State.CLOSED;
                throw e;
            }
            if (config.bypassNpmLauncher()) {
                binary = bypassLauncher(binary, env);
            }
            List<String> command = new ArrayList<>();
            command.add(binary.toString());
            command.addAll(config.args());
            pb.command(command);
            try {
                process = pb.start();
            } catch (IOException e) {
                state = State.CLOSED;
                throw new CodexTransportException("Could not start " + commandLine(binary.toString()) + ": "
                        + e.getMessage() + ". " + config.howToFix(), e);
            }
            long pid = process.pid();
            description = "stdio: " + commandLine(config.executable()) + " (pid " + pid + ")";
            sink = new GuardedSink(target, description);
            stdin = process.getOutputStream();
            stderrThread = new Thread(
                    new StderrDrainer(process.getErrorStream(), tail, config.redactor(), "pid " + pid),
                    "codex-stdio-stderr-" + pid);
            stderrThread.setDaemon(true);
            reader = new Thread(this::readLoop, "codex-stdio-reader-" + pid);
            reader.setDaemon(true);
            state = State.STARTED;
            stderrThread.start();
            reader.start();
            Log.LOG.debug("started {}", description);
        }
    }

    /**
     * The native codex in place of the npm launcher, with the launcher's changes made to {@code env}; the executable
     * itself when it is not the launcher, or when the launcher is kept (said once per launcher, with the reason).
     */
    private static Path bypassLauncher(Path executable, Map<String, String> env) {
        NpmLauncher.Resolution r = NpmLauncher.resolve(executable, env);
        if (r instanceof NpmLauncher.Native n) {
            n.applyTo(env);
            Log.LOG.debug("running the native codex {} in place of the npm launcher {} (@openai/codex {})",
                    n.binary(), n.launcher(), n.packageVersion());
            return n.binary();
        }
        if (r instanceof NpmLauncher.Kept k && KEPT_LAUNCHERS.add(k.launcher())) {
            Log.LOG.info("{} is the npm launcher of codex, but {}: running the launcher, which costs a Node.js "
                    + "process per server", k.launcher(), k.why());
        }
        return executable;
    }

    /** Writes one message and its newline, then flushes. */
    public void send(byte[] message) {
        if (closeRequested || currentState() != State.STARTED) {
            throw closedException();
        }
        IOException failure;
        writeLock.lock();
        try {
            if (closeRequested) {
                throw closedException();
            }
            stdin.write(message);
            stdin.write('\n');
            stdin.flush();
            return;
        } catch (IOException e) {
            failure = e;
        } finally {
            writeLock.unlock();
        }
        // Outside the lock: the reader, ending the child, takes it to close stdin.
        throw writeFailed(failure);
    }

    /** Ends the child and the threads, waiting the configured graceful timeout; bounded in time, idempotent. */
    public void close() {
        close(config.closeTimeout());
    }

    /**
     * Ends the child and the threads: closes its stdin, waits up to {@code grace} for it to exit, then terminates
     * and finally kills it and its descendants. Bounded in time, idempotent; with {@code Duration.ZERO} the child
     * gets SIGTERM at once.
     */
    public void close(Duration grace) {
        synchronized (lifecycle) {
            if (state == State.NEW) {
                state = State.CLOSED;
                return;
            }
            state = State.CLOSED;
        }
        if (process == null) {
            return;
        }
        // An interrupted caller would cut every bounded wait short and skip the graceful steps; set it again after.
        boolean interrupted = Thread.interrupted();
        try {
            closeGracefully(grace);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void closeGracefully(Duration grace) {
        closeGrace = grace;
        closeRequested = true;
        shutdownProcess(grace);
        boolean onReader = Thread.currentThread() == reader;
        if (!onReader) {
            join(reader);
        }
        join(stderrThread);
        closeQuietly(process.getInputStream());
        closeQuietly(process.getErrorStream());
        if (!onReader && reader.isAlive()) {
            // Something outside the process tree still holds the pipe; give up on the reader, not on the caller.
            Log.LOG.warn("reader of {} did not stop within {}", description, THREAD_JOIN);
            sink.deliverClosed(termination(true, null));
        }
        if (!onReader) {
            sink.awaitClosed(THREAD_JOIN.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    public String describe() {
        return config.redactor().redact(description);
    }

    /** The current stderr tail, redacted. */
    public String stderrTail() {
        return tail.snapshot();
    }

    /** The child process, once started. */
    public Optional<ProcessHandle> processHandle() {
        return process == null ? Optional.empty() : Optional.of(process.toHandle());
    }

    private State currentState() {
        synchronized (lifecycle) {
            return state;
        }
    }

    private void readLoop() {
        Throwable failure = null;
        try {
            config.stdout().readAll(process.getInputStream(), sink);
        } catch (IOException | RuntimeException e) {
            failure = e;
        } catch (Error e) {
            failure = e;
            throw e;
        } finally {
            readerFinished(failure);
        }
    }

    private void readerFinished(Throwable failure) {
        boolean requested = closeRequested;
        if (!requested) {
            if (failure != null) {
                Log.LOG.debug("reading from {} failed", description, failure);
            } else {
                Log.LOG.debug("{} closed its stdout", description);
            }
        }
        try {
            // Unasked end of stream: the child is exiting or has abandoned the protocol; either way it gets less
            // time than on a requested close.
            Duration grace = requested ? closeGrace : null;
            shutdownProcess(grace != null ? grace : shorter(config.closeTimeout(), EXIT_CODE_WAIT));
            join(stderrThread);
            // Release the pipes even if nobody ever calls close().
            closeQuietly(process.getInputStream());
            closeQuietly(process.getErrorStream());
        } finally {
            sink.deliverClosed(termination(requested, failure));
        }
        synchronized (lifecycle) {
            state = State.CLOSED;
        }
    }

    private TransportTermination termination(boolean requested, Throwable failure) {
        OptionalInt exit = exitCode();
        String reason;
        if (requested) {
            reason = "closed by the client";
        } else if (failure != null) {
            reason = "reading from codex app-server failed: " + failure;
        } else if (exit.isPresent()) {
            reason = "codex app-server exited";
        } else {
            reason = "codex app-server closed its stdout";
        }
        return new TransportTermination(config.redactor().redact(reason), exit, tail.snapshot(),
                Optional.ofNullable(failure), requested);
    }

    private OptionalInt exitCode() {
        if (process == null || process.isAlive()) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(process.exitValue());
    }

    private static Duration shorter(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private void shutdownProcess(Duration grace) {
        synchronized (shutdownLock) {
            if (shutdownDone) {
                return;
            }
            try {
                List<ProcessHandle> tree = ProcessTree.descendants(process.toHandle());
                closeStdin();
                boolean exited = waitFor(grace);
                if (!exited) {
                    tree = ProcessTree.union(tree, ProcessTree.descendants(process.toHandle()));
                    Log.LOG.debug("{} did not exit within {} after stdin closed; terminating it", description, grace);
                    List<ProcessHandle> all = new ArrayList<>(tree);
                    all.add(process.toHandle());
                    if (!ProcessTree.terminate(all, terminatePatience(grace))) {
                        Log.LOG.warn("{} or one of its child processes could not be killed", description);
                    }
                }
                // The launcher may exit while the native binary it started lives on.
                if (!ProcessTree.terminate(tree, terminatePatience(grace))) {
                    Log.LOG.warn("a child process of {} could not be killed", description);
                }
                waitFor(EXIT_CODE_WAIT);
            } finally {
                shutdownDone = true;
            }
        }
    }

    private static Duration terminatePatience(Duration grace) {
        if (grace.compareTo(MIN_TERMINATE_PATIENCE) < 0) {
            return MIN_TERMINATE_PATIENCE;
        }
        return grace.compareTo(MAX_TERMINATE_PATIENCE) > 0 ? MAX_TERMINATE_PATIENCE : grace;
    }

    private void closeStdin() {
        boolean locked = false;
        try {
            // A send blocked on a full pipe holds the lock; then the child is killed instead, which fails that send.
            locked = writeLock.tryLock(STDIN_LOCK_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            if (locked) {
                closeQuietly(stdin);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (locked) {
                writeLock.unlock();
            }
        }
    }

    private boolean waitFor(Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !process.isAlive();
        }
    }

    private CodexTransportException closedException() {
        TransportTermination t = sink == null ? null : sink.termination();
        if (t != null) {
            return new CodexTransportException("Transport " + describe() + " is closed: " + t.reason(),
                    t.exitCode(), t.stderrTail(), t.cause().orElse(null));
        }
        if (process == null) {
            return new CodexTransportException("Transport " + describe() + " is not started");
        }
        return new CodexTransportException("Transport " + describe() + " is closed", exitCode(),
                tail.snapshot(), null);
    }

    private CodexTransportException writeFailed(IOException e) {
        if (closeRequested) {
            return closedException();
        }
        // The pipe broke because the child is going away: a moment's wait usually yields its exit. The exit is the
        // news, not the broken pipe, so once the child has exited wait for the reader to report the termination:
        // a caller then learns the same thing (the exit, its code, the stderr tail) whether the write or the
        // reader noticed first, and a client's pending calls have been failed with it.
        if (waitFor(WRITE_FAILURE_EXIT_WAIT) && Thread.currentThread() != reader
                && sink.awaitClosed(EXIT_CODE_WAIT.plus(THREAD_JOIN).toMillis(), TimeUnit.MILLISECONDS)) {
            TransportTermination t = sink.termination();
            return new CodexTransportException("Cannot write to " + describe() + ": " + t.reason(), t.exitCode(),
                    t.stderrTail(), e);
        }
        return new CodexTransportException("Cannot write to " + describe() + ": " + e.getMessage(), exitCode(),
                tail.snapshot(), e);
    }

    private String commandLine(String executable) {
        String name = executable;
        int slash = Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\'));
        if (slash >= 0 && slash < name.length() - 1) {
            name = name.substring(slash + 1);
        }
        StringBuilder sb = new StringBuilder(name);
        for (String arg : config.args()) {
            sb.append(' ').append(arg);
        }
        return sb.toString();
    }

    private static void join(Thread thread) {
        if (thread == null || thread == Thread.currentThread()) {
            return;
        }
        try {
            thread.join(THREAD_JOIN.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(Closeable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (IOException e) {
            Log.LOG.trace("closing a pipe failed: {}", e.toString());
        }
    }
}
