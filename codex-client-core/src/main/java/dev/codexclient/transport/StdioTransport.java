package dev.codexclient.transport;

import dev.codexclient.internal.Redactor;
import dev.codexclient.internal.transport.StdioEngine;
import dev.codexclient.internal.transport.StreamReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Runs {@code codex app-server} as a child process and speaks newline-delimited JSON over its stdin and stdout.
 *
 * <pre>{@code
 * Transport transport = StdioTransport.builder()
 *         .executable(Path.of("/opt/codex/bin/codex"))
 *         .codexHome(Path.of("/srv/bot/.codex"))
 *         .build();
 * }</pre>
 *
 * <p>The child's stderr is drained continuously (an unread pipe would stall codex), logged at DEBUG on
 * {@code dev.codexclient.transport.stderr} with secrets masked, and its last lines are attached to the
 * {@link TransportTermination} and to {@link dev.codexclient.errors.CodexTransportException}s. {@link #close()}
 * closes the child's stdin, waits {@link Builder#closeTimeout(Duration)}, then terminates and finally kills
 * the child and every process it started.
 */
public final class StdioTransport implements Transport {

    /** What to tell a user whose codex binary cannot be started. */
    static final String HOW_TO_FIX = "Install the Codex CLI with `npm install -g @openai/codex`, or point the SDK at "
            + "the binary with StdioTransport.builder().executable(Path.of(\"/path/to/codex\")).";

    private final StdioEngine connection;

    private StdioTransport(StdioEngine connection) {
        this.connection = connection;
    }

    /** {@return a builder preset to run {@code codex app-server} from {@code PATH}} */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Spawns the child and starts reading its stdout.
     *
     * @throws dev.codexclient.errors.CodexTransportException when the executable is missing, not executable or
     *                                                        cannot be started; the sink is then never called
     * @throws IllegalStateException                          when called twice or after {@link #close()}
     */
    @Override
    public void start(MessageSink sink) {
        connection.start(Objects.requireNonNull(sink, "sink"));
    }

    @Override
    public void send(byte[] message) {
        connection.send(Objects.requireNonNull(message, "message"));
    }

    /**
     * Closes the child's stdin, waits {@link Builder#closeTimeout(Duration)} for it to exit, then
     * terminates it (see the class comment).
     */
    @Override
    public void close() {
        connection.close();
    }

    /**
     * Like {@link #close()} with {@code timeout} in place of the builder's graceful close timeout: the child gets
     * SIGTERM after {@code timeout} (at once for zero), and SIGKILL a second or two later.
     */
    @Override
    public void close(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be negative: " + timeout);
        }
        connection.close(timeout);
    }

    /** {@code "stdio"}. */
    @Override
    public String kind() {
        return "stdio";
    }

    @Override
    public String describe() {
        return connection.describe();
    }

    /** The child process while it runs (and after, until the handle is collected); empty before {@link #start}. */
    @Override
    public Optional<ProcessHandle> process() {
        return connection.processHandle();
    }

    /** {@return the last lines the child wrote to stderr so far, secrets masked; empty when none} */
    public String stderrTail() {
        return connection.stderrTail();
    }

    @Override
    public String toString() {
        return describe();
    }

    /** Configures a {@link StdioTransport}; every setting has a sensible default. */
    public static final class Builder {
        /** A further masking, e.g. the client's that builds this transport, so both mask the same secrets. */
        private UnaryOperator<String> alsoMask = UnaryOperator.identity();
        private String executable = "codex";
        private final List<String> args = new ArrayList<>(List.of("app-server"));
        private Path workingDirectory;
        private final Map<String, String> environment = new LinkedHashMap<>();
        private final Set<String> removedEnvironment = new LinkedHashSet<>();
        private int maxLineBytes = LineFramer.DEFAULT_MAX_LINE_BYTES;
        private Duration closeTimeout = Transport.DEFAULT_CLOSE_TIMEOUT;
        private int stderrTailLines = 50;
        private int stderrTailBytes = 16 * 1024;
        private final List<String> secrets = new ArrayList<>();
        private boolean bypassNpmLauncher = true;

        private Builder() {
        }

        /**
         * The program to run: a bare name looked up on {@code PATH} (default {@code codex}) or a path.
         *
         * @param executable the program's name or path
         * @return this builder
         */
        public Builder executable(String executable) {
            this.executable = Objects.requireNonNull(executable, "executable");
            return this;
        }

        /**
         * The program to run.
         *
         * @param executable the program's path
         * @return this builder
         */
        public Builder executable(Path executable) {
            return executable(Objects.requireNonNull(executable, "executable").toString());
        }

        /**
         * Replaces the arguments (default {@code app-server}).
         *
         * @param args the arguments, in order; none may be null
         * @return this builder
         */
        public Builder args(List<String> args) {
            Objects.requireNonNull(args, "args");
            this.args.clear();
            for (String arg : args) {
                this.args.add(Objects.requireNonNull(arg, "args element"));
            }
            return this;
        }

        /**
         * Replaces the arguments (default {@code app-server}).
         *
         * @param args the arguments, in order; none may be null
         * @return this builder
         */
        public Builder args(String... args) {
            return args(List.of(args));
        }

        /**
         * Appends arguments, e.g. {@code addArgs("-c", "model=\"o3\"")}.
         *
         * @param more the arguments to append, in order; none may be null
         * @return this builder
         */
        public Builder addArgs(String... more) {
            for (String arg : more) {
                this.args.add(Objects.requireNonNull(arg, "argument"));
            }
            return this;
        }

        /**
         * The child's working directory (default: this process's).
         *
         * @param directory the directory
         * @return this builder
         */
        public Builder workingDirectory(Path directory) {
            this.workingDirectory = Objects.requireNonNull(directory, "directory");
            return this;
        }

        /**
         * Sets one environment variable of the child, on top of this process's environment. Values of variables
         * whose names look secret ({@code *KEY*}, {@code *TOKEN*}, {@code *SECRET*}, {@code *PASSWORD*}) are masked
         * in logs and error messages.
         *
         * @param name  the variable's name; a later call for the same name replaces the value
         * @param value its value
         * @return this builder
         */
        public Builder environment(String name, String value) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, "value");
            removedEnvironment.remove(name);
            environment.put(name, value);
            String upper = name.toUpperCase(Locale.ROOT);
            if (upper.contains("KEY") || upper.contains("TOKEN") || upper.contains("SECRET")
                    || upper.contains("PASSWORD")) {
                secrets.add(value);
            }
            return this;
        }

        /**
         * Removes a variable this process would otherwise pass on to the child.
         *
         * @param name the variable's name; an earlier {@link #environment(String, String)} for it is undone
         * @return this builder
         */
        public Builder removeEnvironment(String name) {
            Objects.requireNonNull(name, "name");
            environment.remove(name);
            removedEnvironment.add(name);
            return this;
        }

        /**
         * Runs codex with {@code CODEX_HOME} set to {@code codexHome} (its config, auth and session store).
         *
         * @param codexHome the directory; made absolute against this process's working directory
         * @return this builder
         */
        public Builder codexHome(Path codexHome) {
            return environment("CODEX_HOME", Objects.requireNonNull(codexHome, "codexHome").toAbsolutePath()
                    .toString());
        }

        /**
         * The longest message accepted, in bytes (default 128 MiB, at least 1 KiB). A longer line is skipped and
         * reported through {@link MessageSink#onOversizedMessage(long)}; the connection stays usable.
         *
         * @param maxLineBytes the limit in bytes
         * @return this builder
         * @throws IllegalArgumentException when {@code maxLineBytes} is below 1 KiB
         */
        public Builder maxLineBytes(int maxLineBytes) {
            if (maxLineBytes < LineFramer.MIN_MAX_LINE_BYTES) {
                throw new IllegalArgumentException("maxLineBytes must be at least " + LineFramer.MIN_MAX_LINE_BYTES
                        + " but was " + maxLineBytes);
            }
            this.maxLineBytes = maxLineBytes;
            return this;
        }

        /**
         * How long {@link StdioTransport#close()} waits for the child to exit after closing its stdin (default
         * {@link Transport#DEFAULT_CLOSE_TIMEOUT}). Then the child and its descendants get SIGTERM, and SIGKILL after
         * the same time again, at least 1 s and at most 2 s. A client's {@code closeTimeout}, when set, takes the
         * place of this value for the client's close.
         *
         * @param timeout the wait, zero or more; zero sends SIGTERM at once
         * @return this builder
         * @throws IllegalArgumentException when {@code timeout} is negative
         */
        public Builder closeTimeout(Duration timeout) {
            this.closeTimeout = notNegative(timeout, "closeTimeout");
            return this;
        }

        /**
         * The former name of {@link #closeTimeout(Duration)}.
         *
         * @param timeout the wait, zero or more
         * @return this builder
         * @deprecated renamed to {@link #closeTimeout(Duration)}, the name every transport and the client use; this
         *             alias goes in the next release
         */
        @Deprecated(since = "0.1.0", forRemoval = true)
        public Builder gracefulCloseTimeout(Duration timeout) {
            return closeTimeout(timeout);
        }

        /**
         * How many stderr lines to keep for error messages (default 50).
         *
         * @param lines the number of lines, at least 1
         * @return this builder
         * @throws IllegalArgumentException when {@code lines} is below 1
         */
        public Builder stderrTailLines(int lines) {
            if (lines < 1) {
                throw new IllegalArgumentException("stderrTailLines must be positive: " + lines);
            }
            this.stderrTailLines = lines;
            return this;
        }

        /**
         * How many bytes of stderr to keep for error messages (default 16 KiB).
         *
         * @param bytes the number of bytes, at least 64
         * @return this builder
         * @throws IllegalArgumentException when {@code bytes} is below 64
         */
        public Builder stderrTailBytes(int bytes) {
            if (bytes < 64) {
                throw new IllegalArgumentException("stderrTailBytes must be at least 64: " + bytes);
            }
            this.stderrTailBytes = bytes;
            return this;
        }

        /**
         * A string to mask wherever the transport would log or report it (an API key passed on the command line,
         * for example). Strings shorter than six characters are ignored.
         *
         * @param secret the string to mask
         * @return this builder
         */
        public Builder redact(String secret) {
            secrets.add(Objects.requireNonNull(secret, "secret"));
            return this;
        }

        /**
         * Also masks, in what this transport logs and reports of the child's stderr, what {@code mask} masks,
         * after this builder's own {@link #redact secrets}. A client that spawns its server passes its own masking
         * here, so that secrets it learns later (a refreshed token) are masked in the child's stderr too.
         *
         * @param mask the further masking; it must be quick and must not throw
         * @return this builder
         */
        public Builder alsoMask(UnaryOperator<String> mask) {
            this.alsoMask = Objects.requireNonNull(mask, "mask");
            return this;
        }

        /**
         * Whether to run the native codex binary when the executable is the npm launcher of {@code @openai/codex}
         * (default true). The {@code codex} that npm installs ({@code node_modules/.bin/codex}, {@code codex} on the
         * {@code PATH} after {@code npm install -g}) is a Node.js script that finds the platform's native binary and
         * runs it as its child, with a few environment variables set and, before codex 0.169.0, its helpers
         * directory (ripgrep) in front of {@code PATH}. With this on, the transport does the same itself and spawns
         * the binary directly: the server starts in about half the time and takes one process and tens of
         * megabytes less. A launcher it does not recognise (an unknown layout or environment variable) is run as it
         * is, and an INFO line on {@code dev.codexclient.transport.stdio} says why. Any other executable, a wrapper
         * script of yours included, always runs as it is.
         *
         * @param bypass false to always run the executable as given
         * @return this builder
         */
        public Builder bypassNpmLauncher(boolean bypass) {
            this.bypassNpmLauncher = bypass;
            return this;
        }

        /**
         * Builds the transport; nothing is spawned until {@link StdioTransport#start(MessageSink)}.
         *
         * @return a new, unstarted transport
         */
        public StdioTransport build() {
            Redactor redactor = new Redactor(alsoMask);
            for (String secret : secrets) {
                redactor.register(secret);
            }
            StdioEngine.Config config = new StdioEngine.Config(executable, args,
                    Optional.ofNullable(workingDirectory), environment, removedEnvironment, lines(maxLineBytes),
                    closeTimeout, stderrTailLines, stderrTailBytes, redactor, HOW_TO_FIX, bypassNpmLauncher);
            return new StdioTransport(new StdioEngine(config));
        }

        /** The child's stdout as lines of at most {@code maxLineBytes}. */
        private static StreamReader lines(int maxLineBytes) {
            return (in, sink) -> new LineFramer(maxLineBytes, sink).readAll(in);
        }

        private static Duration notNegative(Duration d, String what) {
            Objects.requireNonNull(d, what);
            if (d.isNegative()) {
                throw new IllegalArgumentException(what + " must not be negative: " + d);
            }
            return d;
        }
    }
}
