package dev.codexclient.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * A JUnit 5 extension that gives each test a fresh {@link FakeCodexAppServer} (as a parameter, or through
 * {@link #fake()} when registered as a field), closes it afterwards, fails the test when the fake recorded
 * failures, and fails a test that leaks threads (named with one of the SDK's prefixes, {@code codex-} by default)
 * or child processes. The threads of the pools every client and fake in the JVM shares (named {@code codex-shared-}:
 * the timer thread, the clients' callback and handler threads, the fakes' workers) are no test's own and idle out on
 * their own after a minute; they are not leaks as long as each pool stays within its ceiling (one timer thread, the
 * client's callback and handler threads within theirs), which the check verifies as well.
 * <pre>{@code
 * @ExtendWith(CodexTestExtension.class)
 * class MyTest {
 *     @Test void works(FakeCodexAppServer fake) { ... }
 * }
 *
 * @RegisterExtension
 * CodexTestExtension codex = CodexTestExtension.builder().leakGracePeriod(Duration.ofSeconds(3)).build();
 * }</pre>
 * Other per-test resources (for example a scripted model server driving the real codex) plug in through
 * {@link Builder#resource(Class, Function)}: they are created on demand, injected by type and closed before the
 * leak check.
 */
public final class CodexTestExtension implements BeforeEachCallback, AfterEachCallback, ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(CodexTestExtension.class);
    private static final String STATE = "state";
    /** The JVM-wide pools' threads, which belong to no one test, by name prefix, with the most each may have. */
    private static final Map<String, Integer> SHARED_THREADS = Map.of(
            "codex-shared-timer", 1,
            "codex-shared-callback-", ceiling("dev.codexclient.callbackThreads"),
            "codex-shared-handler-", ceiling("dev.codexclient.handlerThreads"),
            // The fakes' own workers: test scaffolding, one per scripted turn or connection at a time.
            "codex-shared-fake-worker-", Integer.MAX_VALUE);

    private final Duration leakGracePeriod;
    private final List<String> threadPrefixes;
    private final boolean checkChildProcesses;
    private final Map<Class<?>, Function<ExtensionContext, ? extends AutoCloseable>> factories;
    private volatile State current;

    /**
     * A shared pool's ceiling as the client reads it: the documented system property, 256 when it is unset or not a
     * whole number of at least 1. Read here, not from the core's internals: in a modular application's tests the
     * testkit runs on the class path beside the core on the module path, where no export to the testkit reaches it.
     */
    private static int ceiling(String property) {
        try {
            int value = Integer.parseInt(System.getProperty(property, "").strip());
            return value >= 1 ? value : 256;
        } catch (NumberFormatException e) {
            return 256;
        }
    }

    /** The defaults: a 2 s grace period, thread prefix {@code codex-}, child processes checked. */
    public CodexTestExtension() {
        this(builder());
    }

    private CodexTestExtension(Builder b) {
        this.leakGracePeriod = b.leakGracePeriod;
        this.threadPrefixes = List.copyOf(b.threadPrefixes);
        this.checkChildProcesses = b.checkChildProcesses;
        Map<Class<?>, Function<ExtensionContext, ? extends AutoCloseable>> all = new LinkedHashMap<>();
        all.put(FakeCodexAppServer.class, ctx -> new FakeCodexAppServer());
        all.putAll(b.factories);
        this.factories = Map.copyOf(all);
    }

    /**
     * A builder for an extension with other settings, to register with {@code @RegisterExtension}.
     *
     * @return a builder with the defaults of {@link #CodexTestExtension()}
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The current test's fake (created on first use).
     *
     * @return the fake of the current test
     */
    public FakeCodexAppServer fake() {
        State state = current;
        if (state == null) {
            throw new IllegalStateException("no test is running");
        }
        return state.get(FakeCodexAppServer.class);
    }

    /** Configures a {@link CodexTestExtension}. */
    public static final class Builder {
        private Duration leakGracePeriod = Duration.ofSeconds(2);
        private final List<String> threadPrefixes = new ArrayList<>(List.of("codex-"));
        private boolean checkChildProcesses = true;
        private final Map<Class<?>, Function<ExtensionContext, ? extends AutoCloseable>> factories =
                new LinkedHashMap<>();

        private Builder() {
        }

        /**
         * How long threads and children may take to end after the test before they count as leaked.
         *
         * @param grace how long, after the test, threads and child processes may take to end
         * @return this builder, for chaining
         */
        public Builder leakGracePeriod(Duration grace) {
            this.leakGracePeriod = Objects.requireNonNull(grace, "grace");
            return this;
        }

        /**
         * Adds a thread-name prefix to watch (the SDK's own, {@code codex-}, is always watched).
         *
         * @param prefix the start of the thread names to watch
         * @return this builder, for chaining
         */
        public Builder threadPrefix(String prefix) {
            threadPrefixes.add(Objects.requireNonNull(prefix, "prefix"));
            return this;
        }

        /**
         * Whether to fail a test that leaves child processes running (on by default).
         *
         * @param check whether to check for leaked child processes
         * @return this builder, for chaining
         */
        public Builder checkChildProcesses(boolean check) {
            this.checkChildProcesses = check;
            return this;
        }

        /**
         * A per-test resource of {@code type}, created on first injection and closed after the test.
         *
         * @param <T> the type of the resource
         * @param type the type of the resource, as a test method's parameter declares it
         * @param factory creates the resource for a test, given the test's extension context
         * @return this builder, for chaining
         */
        public <T extends AutoCloseable> Builder resource(Class<T> type, Function<ExtensionContext, T> factory) {
            factories.put(Objects.requireNonNull(type, "type"), Objects.requireNonNull(factory, "factory"));
            return this;
        }

        /**
         * The extension with these settings.
         *
         * @return the extension
         */
        public CodexTestExtension build() {
            return new CodexTestExtension(this);
        }
    }

    /** What one test created, and what was alive before it started. */
    private final class State {
        final ExtensionContext context;
        final Set<Thread> threadsBefore;
        final Set<Long> childrenBefore;
        final Map<Class<?>, AutoCloseable> resources = new LinkedHashMap<>();

        State(ExtensionContext context) {
            this.context = context;
            this.threadsBefore = watchedThreads();
            this.childrenBefore = children();
        }

        synchronized <T> T get(Class<T> type) {
            AutoCloseable existing = resources.get(type);
            if (existing == null) {
                Function<ExtensionContext, ? extends AutoCloseable> factory = factories.get(type);
                existing = factory.apply(context);
                resources.put(type, existing);
            }
            return type.cast(existing);
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        State state = new State(context);
        context.getStore(NAMESPACE).put(STATE, state);
        current = state;
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        State state = context.getStore(NAMESPACE).remove(STATE, State.class);
        current = null;
        if (state == null) {
            return;
        }
        List<Throwable> problems = new ArrayList<>();
        List<AutoCloseable> toClose = new ArrayList<>(state.resources.values());
        java.util.Collections.reverse(toClose);
        for (AutoCloseable resource : toClose) {
            try {
                resource.close();
            } catch (Exception | AssertionError e) {
                problems.add(e);
            }
            if (resource instanceof FakeCodexAppServer fake) {
                try {
                    fake.verifyNoFailures();
                } catch (AssertionError e) {
                    problems.add(e);
                }
            }
        }
        String leaks = awaitNoLeaks(state);
        if (!leaks.isEmpty()) {
            problems.add(new AssertionError(leaks));
        }
        if (!problems.isEmpty() && context.getExecutionException().isEmpty()) {
            Throwable first = problems.get(0);
            problems.stream().skip(1).forEach(first::addSuppressed);
            if (first instanceof Exception e) {
                throw e;
            }
            throw (AssertionError) first;
        }
    }

    private String awaitNoLeaks(State state) throws InterruptedException {
        long deadline = System.nanoTime() + leakGracePeriod.toNanos();
        while (true) {
            Set<Thread> threads = watchedThreads();
            threads.removeAll(state.threadsBefore);
            Set<Long> kids = checkChildProcesses ? children() : Set.of();
            kids.removeAll(state.childrenBefore);
            String overCeiling = sharedThreadsOverTheirCeilings();
            if (threads.isEmpty() && kids.isEmpty() && overCeiling.isEmpty()) {
                return "";
            }
            if (System.nanoTime() > deadline) {
                StringBuilder sb = new StringBuilder("the test leaked resources (still alive "
                        + leakGracePeriod.toMillis() + " ms after it ended):");
                threads.forEach(t -> sb.append("\n  thread ").append(t.getName())
                        .append(t.isDaemon() ? " (daemon)" : "").append(" state=").append(t.getState()));
                kids.forEach(pid -> sb.append("\n  child process ").append(pid).append(' ')
                        .append(ProcessHandle.of(pid).flatMap(p -> p.info().commandLine()).orElse("")));
                sb.append(overCeiling);
                return sb.toString();
            }
            Thread.sleep(25);
        }
    }

    /** The shared pools with more live threads than their ceilings allow, one line each; empty when none. */
    private static String sharedThreadsOverTheirCeilings() {
        Map<String, Long> counts = Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .map(Thread::getName)
                .flatMap(name -> SHARED_THREADS.keySet().stream().filter(name::startsWith))
                .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
        StringBuilder sb = new StringBuilder();
        counts.forEach((prefix, count) -> {
            if (count > SHARED_THREADS.get(prefix)) {
                sb.append("\n  ").append(count).append(" threads ").append(prefix)
                        .append("*, more than the shared pool's ceiling of ").append(SHARED_THREADS.get(prefix));
            }
        });
        return sb.toString();
    }

    /** Whether {@code name} is a thread of one of the JVM-wide pools. */
    private static boolean isShared(String name) {
        return SHARED_THREADS.keySet().stream().anyMatch(name::startsWith);
    }

    private Set<Thread> watchedThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .filter(t -> !isShared(t.getName()))
                .filter(t -> threadPrefixes.stream().anyMatch(p -> t.getName().startsWith(p)))
                .collect(Collectors.toCollection(java.util.HashSet::new));
    }

    private static Set<Long> children() {
        return ProcessHandle.current().children().filter(ProcessHandle::isAlive).map(ProcessHandle::pid)
                .collect(Collectors.toCollection(java.util.HashSet::new));
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return factories.containsKey(parameterContext.getParameter().getType());
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        State state = extensionContext.getStore(NAMESPACE).get(STATE, State.class);
        if (state == null) {
            throw new ParameterResolutionException("CodexTestExtension injects only into test methods");
        }
        return state.get(parameterContext.getParameter().getType());
    }
}
