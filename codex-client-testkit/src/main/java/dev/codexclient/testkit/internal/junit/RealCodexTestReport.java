package dev.codexclient.testkit.internal.junit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.TestTag;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Writes what became of every test tagged {@value #TAG} to {@code target/real-codex-tests.tsv} of the module under
 * test: one line per test, its outcome ({@code SUCCESSFUL}, {@code FAILED}, {@code SKIPPED}, {@code ABORTED}, or
 * {@code NOT_RUN} when a container above it was skipped or aborted), its class, its name, for a test that did
 * not run why, and its method. {@code .ci/no-skipped-real-codex} fails the build on any line but {@code SUCCESSFUL}
 * and {@code FAILED}: a test that needs the real codex and did not run proves nothing, and must not pass as green.
 * That check takes the tests that must run from the test sources; this report, which sees the tags as JUnit resolves
 * them, tells it when its reading of the sources missed one.
 *
 * <p>A launcher listener rather than a JUnit extension: it sees the tags however they were declared (on the class,
 * the method, or inherited), skips by a condition or a failed assumption alike, and the tests under a container
 * that never ran; the surefire XML reports carry no tags. Registered through
 * {@code META-INF/services/org.junit.platform.launcher.TestExecutionListener} in the test resources of each module
 * that has real-codex tests.
 */
public final class RealCodexTestReport implements TestExecutionListener {
    /** The tag of tests that need the real codex. */
    public static final String TAG = "real-codex";
    /** The report, under the module's directory. */
    public static final String REPORT = "target/real-codex-tests.tsv";

    /** Whether this JVM wrote the report already: its first test plan starts it anew, later ones add to it. */
    private static boolean started;

    /** Outcome and reason of each real-codex test or container that ended, by unique id. */
    private final Map<String, String[]> outcomes = new LinkedHashMap<>();

    /** Creates the listener; the JUnit launcher does, through the service loader. */
    public RealCodexTestReport() {
    }

    @Override
    public synchronized void testPlanExecutionStarted(TestPlan testPlan) {
        outcomes.clear();
    }

    @Override
    public synchronized void executionSkipped(TestIdentifier id, String reason) {
        outcomes.put(id.getUniqueId(), new String[] {"SKIPPED", reason});
    }

    @Override
    public synchronized void executionFinished(TestIdentifier id, TestExecutionResult result) {
        String reason = result.getThrowable().map(t -> String.valueOf(t.getMessage())).orElse("");
        outcomes.put(id.getUniqueId(), new String[] {result.getStatus().name(), reason});
    }

    @Override
    public synchronized void testPlanExecutionFinished(TestPlan testPlan) {
        List<String> lines = new ArrayList<>();
        for (TestIdentifier root : testPlan.getRoots()) {
            collect(testPlan, root, null, lines);
        }
        write(lines);
    }

    /** Adds the real-codex tests under {@code id}; {@code notRun} is why, when a container above did not run. */
    private void collect(TestPlan testPlan, TestIdentifier id, String notRun, List<String> lines) {
        String[] outcome = outcomes.get(id.getUniqueId());
        String why = notRun;
        if (why == null && outcome != null && id.isContainer()
                && (outcome[0].equals("SKIPPED") || outcome[0].equals("ABORTED"))) {
            why = outcome[0] + " container " + id.getDisplayName() + ": " + outcome[1];
        }
        if (id.isTest() && isRealCodex(id)) {
            String status;
            String reason;
            if (outcome != null) {
                status = outcome[0];
                reason = outcome[0].equals("SUCCESSFUL") ? "" : outcome[1];
            } else {
                status = "NOT_RUN";
                reason = why != null ? why : "never started";
            }
            lines.add(String.join("\t", status, className(testPlan, id), id.getDisplayName(), oneLine(reason),
                    methodName(testPlan, id)));
        }
        for (TestIdentifier child : testPlan.getChildren(id)) {
            collect(testPlan, child, why, lines);
        }
    }

    private static boolean isRealCodex(TestIdentifier id) {
        return id.getTags().stream().map(TestTag::getName).anyMatch(TAG::equals);
    }

    /** The test's class, from its own source or the nearest container's (a parameterized case has none). */
    private static String className(TestPlan testPlan, TestIdentifier id) {
        Optional<TestIdentifier> at = Optional.of(id);
        while (at.isPresent()) {
            Optional<TestSource> source = at.get().getSource();
            if (source.isPresent() && source.get() instanceof MethodSource m) {
                return m.getClassName();
            }
            if (source.isPresent() && source.get() instanceof ClassSource c) {
                return c.getClassName();
            }
            at = testPlan.getParent(at.get());
        }
        return "?";
    }

    /** The test's method, from its own source or the nearest container's (a dynamic test has none of its own). */
    private static String methodName(TestPlan testPlan, TestIdentifier id) {
        Optional<TestIdentifier> at = Optional.of(id);
        while (at.isPresent()) {
            Optional<TestSource> source = at.get().getSource();
            if (source.isPresent() && source.get() instanceof MethodSource m) {
                return m.getMethodName();
            }
            at = testPlan.getParent(at.get());
        }
        return "";
    }

    private static String oneLine(String text) {
        return text.replaceAll("\\s+", " ").strip();
    }

    private static void write(List<String> lines) {
        Path report = Path.of(System.getProperty("basedir", ".")).resolve(REPORT);
        try {
            Files.createDirectories(report.getParent());
            synchronized (RealCodexTestReport.class) {
                // A test may run a launcher of its own (to test an extension): its plan adds to the JVM's report.
                if (started) {
                    Files.write(report, lines, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
                } else {
                    Files.write(report, lines, StandardCharsets.UTF_8);
                    started = true;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + report, e);
        }
    }
}
