import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * Fails unless every test tagged real-codex ran and passed: see .ci/no-skipped-real-codex, which runs this file.
 *
 * <p>What must have run is read from the test sources, never from the run itself, so that a run that left tests out
 * cannot also lower the bar: every module of the reactor (the root POM's modules, recursively), every test class
 * surefire or failsafe picks by its name, every method JUnit runs as a test ({@code @Test}, {@code
 * @ParameterizedTest}, {@code @RepeatedTest}, {@code @TestFactory}, {@code @TestTemplate}, or an annotation of the
 * build's own composed of one) whose tags, its own or those of its class, superclasses, interfaces or enclosing
 * class, include real-codex ({@code @Tag}, {@code @Tags} or an annotation composed of them). Inherited test methods
 * and {@code @Nested} classes are followed as JUnit follows them.
 *
 * <p>What ran is read from the XML reports: every directory {@code target/surefire-reports*} of a module is one run
 * of its surefire tests and {@code target/failsafe-reports*} of its failsafe tests (a module may run its tests more
 * than once, e.g. on two versions of a framework, each into a directory of its own). In each run of its kind every
 * expected test must appear, each of its cases (a parameterized or repeated test has several) passed: one missing,
 * skipped, aborted (an assumption) or failed is a failure, and so is a module with expected tests and no run.
 *
 * <p>The testkit's RealCodexTestReport (a JUnit launcher listener, which sees the tags as JUnit resolves them) writes
 * target/real-codex-tests.tsv for the module's last test run: a test it saw tagged real-codex that the source scan
 * missed means the scan is wrong, and fails too, as does any test it reports skipped, aborted or not run; and an
 * expected test it does not list was not in the last run, so its XML report is an earlier run's (surefire leaves the
 * reports of classes a filtered run left out): stale, a failure.
 */
public final class NoSkippedRealCodex {
    private static final String TAG = JavaTestSources.TAG;
    private static final String LISTENER_REPORT = "target/real-codex-tests.tsv";
    /** Surefire's and failsafe's default includes, on the simple name of a top-level class. */
    private static final Pattern SUREFIRE = Pattern.compile("Test.*|.*Test|.*Tests|.*TestCase");
    private static final Pattern FAILSAFE = Pattern.compile("IT.*|.*IT|.*ITCase");

    private final Path root;
    /** Properties of the run, over those of the POMs. */
    private final Map<String, String> properties;
    /** Profiles of the run, whose properties are over those of the POMs. */
    private final List<String> profiles;
    /** A set: the same misreading can be met from several classes. */
    private final Set<String> problems = new LinkedHashSet<>();
    private final JavaTestSources scan = new JavaTestSources();
    /** Modules every test of which must have run and passed, tagged or not (a run of a few modules, -pl). */
    private final Set<String> everyTest = new TreeSet<>();
    /** The real-codex tests of the default build, one per line: "module class#method", in order. */
    private final List<String> found = new ArrayList<>();
    /** The committed record of those, which a change that adds, removes or untags one must update on purpose. */
    static final String RECORD = ".ci/real-codex-tests.txt";

    private NoSkippedRealCodex(Path root, Map<String, String> properties, List<String> profiles) {
        this.root = root;
        this.properties = properties;
        this.profiles = profiles;
    }

    /**
     * Runs the check.
     *
     * @param args the project's root (default: the current directory), and the run's {@code -Pprofile} and
     *             {@code -Dname=value} as on Maven's command line, where they decide which test sources a module
     *             compiles (e.g. {@code -Pspring-boot-3})
     */
    public static void main(String[] args) throws Exception {
        Path root = Path.of(".");
        Map<String, String> properties = new LinkedHashMap<>();
        List<String> profiles = new ArrayList<>();
        Set<String> everyTest = new TreeSet<>();
        boolean record = false;
        for (String arg : args) {
            if (arg.equals("--record")) {
                record = true;
            } else if (arg.startsWith("--every-test=")) {
                everyTest.addAll(List.of(arg.substring("--every-test=".length()).split(",")));
            } else if (arg.startsWith("-D") && arg.contains("=")) {
                properties.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
            } else if (arg.startsWith("-P")) {
                profiles.addAll(List.of(arg.substring(2).split(",")));
            } else {
                root = Path.of(arg);
            }
        }
        NoSkippedRealCodex check = new NoSkippedRealCodex(root.toAbsolutePath().normalize(), properties, profiles);
        check.everyTest.addAll(everyTest);
        if (record) {
            check.record();
            return;
        }
        int expected = check.run();
        if (!check.problems.isEmpty()) {
            System.err.println("real-codex tests that did not run and pass (" + check.problems.size() + "):");
            check.problems.forEach(p -> System.err.println("  " + p));
            System.exit(1);
        }
        System.out.printf("all %d real-codex tests ran and passed in every run; none was skipped, aborted or left out%n",
                expected);
    }

    private int run() throws Exception {
        List<Path> modules = new ArrayList<>();
        reactorModules(root, modules);
        Map<Path, List<Path>> testSources = new LinkedHashMap<>();
        for (Path module : modules) {
            testSources.put(module, testSourceRoots(module));
            for (Path dir : testSources.get(module)) {
                scan.addSources(dir, true);
            }
            scan.addSources(module.resolve("src/main/java"), false);
        }
        scan.resolveAnnotations();
        int total = 0;
        for (Path module : modules) {
            total += checkModule(module, testSources.get(module));
        }
        problems.addAll(scan.problems);
        if (profiles.isEmpty() && properties.isEmpty()) {
            compareWithRecord();
        }
        if (total == 0) {
            problems.add("the test sources under " + root + " tag no test " + TAG + ": the scan is broken, or the tag"
                    + " was renamed");
        }
        return total;
    }

    // ---------------------------------------------------------------------------------------------- the record

    /** Writes {@link #RECORD}: the real-codex tests of the default build as the sources have them now. */
    private void record() throws Exception {
        run();
        List<String> lines = new ArrayList<>(List.of(
                "# The real-codex tests of the default build (module, class#method), which .ci/no-skipped-real-codex",
                "# requires to have run and passed. A change that adds, removes or untags one updates this file on",
                "# purpose: .ci/no-skipped-real-codex --record"));
        lines.addAll(found);
        Files.write(root.resolve(RECORD), lines, StandardCharsets.UTF_8);
        System.out.printf("recorded %d real-codex tests in %s%n", found.size(), RECORD);
    }

    /** The tests the sources tag real-codex against the committed record: any difference fails the check. */
    private void compareWithRecord() throws IOException {
        Path file = root.resolve(RECORD);
        if (!Files.isRegularFile(file)) {
            problems.add("no " + RECORD + ": record the real-codex tests with .ci/no-skipped-real-codex --record");
            return;
        }
        Set<String> recorded = new TreeSet<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (!line.isBlank() && !line.startsWith("#")) {
                recorded.add(line.strip());
            }
        }
        Set<String> now = new TreeSet<>(found);
        Set<String> gone = new TreeSet<>(recorded);
        gone.removeAll(now);
        Set<String> added = new TreeSet<>(now);
        added.removeAll(recorded);
        if (!gone.isEmpty() || !added.isEmpty()) {
            StringBuilder b = new StringBuilder("the real-codex tests differ from " + RECORD + " (" + recorded.size()
                    + " recorded, " + now.size() + " in the sources): a test removed, untagged or added changes the"
                    + " bar, so the record changes with it, on purpose (.ci/no-skipped-real-codex --record)");
            gone.forEach(t -> b.append("\n      no longer a real-codex test: ").append(t));
            added.forEach(t -> b.append("\n      not recorded: ").append(t));
            problems.add(b.toString());
        }
    }

    // ---------------------------------------------------------------------------------------------- the reactor

    /** The module directories of the build: the POM's modules, recursively (the root itself when it has tests). */
    private void reactorModules(Path dir, List<Path> out) throws Exception {
        Path pom = dir.resolve("pom.xml");
        if (!Files.isRegularFile(pom)) {
            problems.add(root.relativize(dir) + ": a module of the build without a pom.xml");
            return;
        }
        out.add(dir);
        Element project = xml(pom);
        for (Element modules : children(project, "modules")) {
            for (Element module : children(modules, "module")) {
                reactorModules(dir.resolve(module.getTextContent().trim()).normalize(), out);
            }
        }
        // The modules of a profile the run sets (e.g. -Pbrowser-tests) are modules of its reactor too.
        for (Element profilesOf : children(project, "profiles")) {
            for (Element profile : children(profilesOf, "profile")) {
                if (children(profile, "id").stream().anyMatch(id -> profiles.contains(id.getTextContent().trim()))) {
                    for (Element modules : children(profile, "modules")) {
                        for (Element module : children(modules, "module")) {
                            reactorModules(dir.resolve(module.getTextContent().trim()).normalize(), out);
                        }
                    }
                }
            }
        }
    }

    /**
     * src/test/java, src/test/kotlin and the test sources the module adds with build-helper's add-test-source, their paths' properties
     * resolved as Maven would for this run: the run's own, then the module's POM's, then the root POM's.
     */
    private List<Path> testSourceRoots(Path module) throws Exception {
        List<Path> roots = new ArrayList<>();
        roots.add(module.resolve("src/test/java"));
        roots.add(module.resolve("src/test/kotlin"));
        Element pom = xml(module.resolve("pom.xml"));
        Element rootPom = xml(root.resolve("pom.xml"));
        Map<String, String> known = new LinkedHashMap<>(pomProperties(rootPom));
        known.putAll(pomProperties(pom));
        for (Element project : List.of(rootPom, pom)) {
            for (Element profilesOf : children(project, "profiles")) {
                for (Element profile : children(profilesOf, "profile")) {
                    if (children(profile, "id").stream().anyMatch(id -> profiles.contains(id.getTextContent().trim()))) {
                        known.putAll(pomProperties(profile));
                    }
                }
            }
        }
        known.putAll(properties);
        known.put("project.basedir", module.toString());
        known.put("basedir", module.toString());
        NodeList executions = pom.getElementsByTagName("execution");
        for (int i = 0; i < executions.getLength(); i++) {
            Element execution = (Element) executions.item(i);
            if (!active(pom, execution)) {
                continue;
            }
            boolean addsTests = false;
            for (Element goals : children(execution, "goals")) {
                for (Element goal : children(goals, "goal")) {
                    addsTests |= goal.getTextContent().trim().equals("add-test-source");
                }
            }
            if (!addsTests) {
                continue;
            }
            NodeList sources = execution.getElementsByTagName("source");
            for (int j = 0; j < sources.getLength(); j++) {
                String path = sources.item(j).getTextContent().trim();
                Matcher m = Pattern.compile("\\$\\{([^}]+)}").matcher(path);
                StringBuilder resolved = new StringBuilder();
                boolean complete = true;
                while (m.find()) {
                    String value = known.get(m.group(1));
                    complete &= value != null;
                    m.appendReplacement(resolved, Matcher.quoteReplacement(value == null ? m.group() : value));
                }
                m.appendTail(resolved);
                if (!complete) {
                    problems.add(root.relativize(module) + ": cannot tell which test sources " + path + " names: pass"
                            + " the profile or property the run sets, e.g. .ci/no-skipped-real-codex -Pprofile -Dname=value");
                    continue;
                }
                Path p = module.resolve(resolved.toString()).normalize();
                if (!roots.contains(p)) {
                    roots.add(p);
                }
            }
        }
        return roots;
    }

    /**
     * Whether the run has the profile {@code node} is in, if any: named with -P, or active by default while the run
     * names none of this POM's profiles (Maven turns a POM's default profiles off when one of its profiles is chosen).
     */
    private boolean active(Element pom, Node node) {
        Node n = node.getParentNode();
        while (n != null && !(n instanceof Element e && e.getTagName().equals("profile"))) {
            n = n.getParentNode();
        }
        if (n == null) {
            return true;
        }
        Element profile = (Element) n;
        String id = children(profile, "id").stream().map(e -> e.getTextContent().trim()).findFirst().orElse("");
        if (profiles.contains(id)) {
            return true;
        }
        boolean byDefault = children(profile, "activation").stream()
                .flatMap(a -> children(a, "activeByDefault").stream())
                .anyMatch(e -> e.getTextContent().trim().equals("true"));
        boolean anyOfThisPom = false;
        for (Element profilesOf : children(pom, "profiles")) {
            for (Element p : children(profilesOf, "profile")) {
                anyOfThisPom |= children(p, "id").stream().anyMatch(e -> profiles.contains(e.getTextContent().trim()));
            }
        }
        return byDefault && !anyOfThisPom;
    }

    /** The {@code <properties>} of a POM's project or of one of its profiles. */
    private static Map<String, String> pomProperties(Element project) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Element props : children(project, "properties")) {
            for (Node n = props.getFirstChild(); n != null; n = n.getNextSibling()) {
                if (n instanceof Element e) {
                    out.put(e.getTagName(), e.getTextContent().trim());
                }
            }
        }
        return out;
    }

    // ---------------------------------------------------------------------------------------------- one module

    /** A test JUnit reports as one or more cases of a class's method (the binary name of the class). */
    private record TestId(String className, String method) implements Comparable<TestId> {
        @Override
        public int compareTo(TestId o) {
            return toString().compareTo(o.toString());
        }

        @Override
        public String toString() {
            return className + "#" + method;
        }
    }

    private int checkModule(Path module, List<Path> sourceRoots) throws Exception {
        String name = module.equals(root) ? "." : root.relativize(module).toString();
        Map<TestId, String> expected = new TreeMap<>(); // -> "surefire" or "failsafe"
        Set<String> testClasses = new TreeSet<>(); // the top-level classes the build runs, tagged or not
        for (JavaTestSources.Type type : scan.types) {
            if (type.enclosing == null && type.isTest && sourceRoots.stream().anyMatch(type.file::startsWith)) {
                expectedOf(name, type, expected, true);
                if (SUREFIRE.matcher(type.simpleName).matches() || FAILSAFE.matcher(type.simpleName).matches()) {
                    testClasses.add(type.binaryName);
                }
            }
        }
        Map<String, Map<TestId, List<String[]>>> runs = new TreeMap<>();
        Path target = module.resolve("target");
        if (Files.isDirectory(target)) {
            try (Stream<Path> dirs = Files.list(target)) {
                for (Path dir : dirs.filter(Files::isDirectory).sorted().toList()) {
                    String dirName = dir.getFileName().toString();
                    if (dirName.startsWith("surefire-reports") || dirName.startsWith("failsafe-reports")) {
                        runs.put(dirName, cases(dir));
                    }
                }
            }
        }
        expected.keySet().forEach(id -> found.add(name + " " + id));
        Set<TestId> tagged = new TreeSet<>(expected.keySet());
        if (everyTest.contains(name)) {
            // Every test of the module, tagged or not: a run that ran none of them must not pass on the tagged
            // tests' reports alone, nor on a module whose tests are all untagged.
            for (JavaTestSources.Type type : scan.types) {
                if (type.enclosing == null && type.isTest && sourceRoots.stream().anyMatch(type.file::startsWith)) {
                    expectedOf(name, type, expected, false);
                }
            }
            if (expected.isEmpty()) {
                problems.add(name + ": --every-test names it, but its sources have no test");
            }
        }
        Set<TestId> lastRun = checkListenerReport(name, module, tagged, testClasses,
                !tagged.isEmpty() && !runs.isEmpty());
        if (expected.isEmpty()) {
            return 0;
        }
        List<String> summary = new ArrayList<>();
        for (String kind : List.of("surefire", "failsafe")) {
            Set<TestId> ofKind = new TreeSet<>();
            expected.forEach((id, k) -> {
                if (k.equals(kind)) {
                    ofKind.add(id);
                }
            });
            if (ofKind.isEmpty()) {
                continue;
            }
            List<String> dirs = runs.keySet().stream().filter(d -> d.startsWith(kind + "-reports")).toList();
            if (dirs.isEmpty()) {
                problems.add(name + ": " + ofKind.size() + (everyTest.contains(name) ? " tests" : " real-codex tests")
                        + " (" + classesOf(ofKind) + ") and no "
                        + kind + " reports (target/" + kind + "-reports*): its tests did not run");
                summary.add("no " + kind + " run");
                continue;
            }
            for (String dir : dirs) {
                summary.add(compare(name, dir, ofKind, runs.get(dir), lastRun, tagged));
            }
        }
        System.out.printf("%s: %d %s; %s%n", name, everyTest.contains(name) ? expected.size() : tagged.size(),
                everyTest.contains(name) ? "tests (every test of the module)" : "real-codex tests",
                String.join("; ", summary));
        return tagged.size();
    }

    /** The real-codex tests of a top-level test class and its {@code @Nested} classes, by the plugin that runs them. */
    private void expectedOf(String module, JavaTestSources.Type type, Map<TestId, String> expected,
                            boolean taggedOnly) {
        String kind = SUREFIRE.matcher(type.simpleName).matches() ? "surefire"
                : FAILSAFE.matcher(type.simpleName).matches() ? "failsafe" : null;
        Map<TestId, JavaTestSources.Method> tests = new TreeMap<>();
        collectTests(type, tests, taggedOnly);
        boolean any = false;
        for (Map.Entry<TestId, JavaTestSources.Method> t : tests.entrySet()) {
            JavaTestSources.Method m = t.getValue();
            if (m.modifiers().contains("static") || m.modifiers().contains("private")) {
                if (!taggedOnly) {
                    continue;
                }
                problems.add(module + ": " + t.getKey() + " is tagged " + TAG + " but JUnit does not run a "
                        + (m.modifiers().contains("static") ? "static" : "private") + " test method (" + m.where() + ")");
                continue;
            }
            any = true;
            if (kind != null) {
                expected.put(t.getKey(), kind);
            }
        }
        if (any && kind == null && taggedOnly) {
            problems.add(module + ": " + type.binaryName + " has tests tagged " + TAG + " that no build runs: surefire"
                    + " picks classes named Test*, *Test, *Tests or *TestCase, failsafe IT*, *IT or *ITCase");
        }
    }

    /** The tagged test methods JUnit runs for {@code type} (inherited ones too), then those of its nested classes. */
    private void collectTests(JavaTestSources.Type type, Map<TestId, JavaTestSources.Method> out,
                              boolean taggedOnly) {
        if (type.modifiers.contains("abstract") || !type.kind.equals("class")) {
            return;
        }
        boolean classTagged = scan.classTagged(type);
        Set<String> shadowed = new LinkedHashSet<>();
        for (JavaTestSources.Type t : scan.hierarchy(type)) {
            for (JavaTestSources.Method m : t.methods) {
                if (!shadowed.add(m.name()) && !t.equals(type)) {
                    continue;
                }
                if (scan.isTest(m) && (!taggedOnly || classTagged || scan.tagged(m.annotations()))) {
                    out.putIfAbsent(new TestId(type.binaryName, m.name()), m);
                }
            }
        }
        for (JavaTestSources.Type nested : type.nested) {
            if (nested.has("Nested") && !nested.modifiers.contains("static")) {
                collectTests(nested, out, taggedOnly);
            }
        }
    }

    /**
     * Each expected test against one run: present, each of its cases passed, and run by the module's last test run
     * (when the listener's report says which tests that was: a report of a test it did not run is an earlier run's,
     * left behind by a run that filtered the test out).
     */
    private String compare(String module, String dir, Set<TestId> expected, Map<TestId, List<String[]>> cases,
                           Set<TestId> lastRun, Set<TestId> tagged) {
        int ran = 0;
        int caseCount = 0;
        Map<String, List<String>> missingByClass = new TreeMap<>();
        for (TestId id : expected) {
            List<String[]> outcomes = cases.get(id);
            if (outcomes == null) {
                missingByClass.computeIfAbsent(id.className(), c -> new ArrayList<>()).add(id.method());
                continue;
            }
            boolean passed = true;
            if (lastRun != null && tagged.contains(id) && !lastRun.contains(id)) {
                problems.add(module + ": STALE in target/" + dir + ": " + id.className() + " " + id.method()
                        + ": the module's last test run (" + LISTENER_REPORT + ") did not run it; its report is an"
                        + " earlier run's");
                passed = false;
            }
            for (String[] o : outcomes) {
                if (!o[0].equals("PASSED")) {
                    problems.add(module + ": " + o[0] + " in target/" + dir + ": " + id.className() + " " + o[1]
                            + (o[2].isEmpty() ? "" : " (" + o[2] + ")"));
                    passed = false;
                }
            }
            caseCount += outcomes.size();
            if (passed) {
                ran++;
            }
        }
        missingByClass.forEach((className, methods) -> {
            boolean classRan = cases.keySet().stream().anyMatch(id -> id.className().equals(className));
            problems.add(module + ": NOT RUN in target/" + dir + ": " + className + " "
                    + (classRan ? String.join(", ", methods)
                    : "(no report of the class; its " + methods.size() + (everyTest.contains(module) ? " tests: "
                    : " real-codex tests: ")
                    + String.join(", ", methods) + ")"));
        });
        return dir + ": " + ran + " passed (" + caseCount + " cases)";
    }

    /** The test cases of a report directory, by class and method: {outcome, case name, message}. */
    private static Map<TestId, List<String[]>> cases(Path dir) throws Exception {
        Map<TestId, List<String[]>> out = new LinkedHashMap<>();
        List<Path> reports;
        try (Stream<Path> files = Files.list(dir)) {
            reports = files.filter(f -> f.getFileName().toString().matches("TEST-.*\\.xml")).sorted().toList();
        }
        for (Path report : reports) {
            NodeList testcases = xml(report).getElementsByTagName("testcase");
            for (int i = 0; i < testcases.getLength(); i++) {
                Element c = (Element) testcases.item(i);
                String caseName = c.getAttribute("name");
                // "method", "method(String)[2]" for a parameterized case, "method()[1]" for a repetition
                String method = caseName.replaceFirst("[(\\[].*", "");
                String outcome = "PASSED";
                String message = "";
                for (String child : List.of("skipped", "failure", "error", "rerunFailure", "rerunError")) {
                    NodeList found = c.getElementsByTagName(child);
                    if (found.getLength() > 0) {
                        Element e = (Element) found.item(0);
                        outcome = child.equals("skipped")
                                ? (e.getAttribute("type").contains("Aborted") ? "ABORTED" : "SKIPPED")
                                : "FAILED";
                        message = e.hasAttribute("message") ? e.getAttribute("message")
                                : e.getTextContent().strip().lines().findFirst().orElse("");
                        break;
                    }
                }
                out.computeIfAbsent(new TestId(c.getAttribute("classname"), method), k -> new ArrayList<>())
                        .add(new String[] {outcome, caseName, message.replaceAll("\\s+", " ").strip()});
            }
        }
        return out;
    }

    /**
     * The launcher listener's report: every test it saw tagged real-codex must be one the scan expects, and none may
     * have been skipped. Read only when the module ran tests (its absence is reported as such above).
     *
     * @return the tests the module's last test run ran or meant to run, or null without a report
     */
    private Set<TestId> checkListenerReport(String module, Path dir, Set<TestId> expected, Set<String> testClasses,
                                            boolean ran) throws IOException {
        Path tsv = dir.resolve(LISTENER_REPORT);
        if (!Files.isRegularFile(tsv)) {
            if (ran) {
                problems.add(module + ": its tests are tagged " + TAG + " and ran, but it wrote no " + LISTENER_REPORT
                        + " (register dev.codexclient.testkit.internal.junit.RealCodexTestReport in src/test/resources"
                        + "/META-INF/services/org.junit.platform.launcher.TestExecutionListener)");
            }
            return null;
        }
        Set<TestId> listed = new TreeSet<>();
        for (String line : Files.readAllLines(tsv, StandardCharsets.UTF_8)) {
            if (line.isBlank()) {
                continue;
            }
            // outcome, class, display name, reason, method (the method is missing in reports of older listeners)
            String[] f = line.split("\t", -1);
            String method = f.length > 4 && !f[4].isEmpty() ? f[4] : f[2].replaceFirst("\\(.*", "");
            listed.add(new TestId(f[1], method));
            if (Set.of("SKIPPED", "ABORTED", "NOT_RUN").contains(f[0])) {
                problems.add(module + ": " + f[0] + " (" + LISTENER_REPORT + "): " + f[1] + " " + f[2]
                        + (f.length > 3 && !f[3].isEmpty() ? " (" + f[3] + ")" : ""));
            }
            // A test of a class the build runs that the scan did not count: the scan misreads the sources.
            String topLevel = f[1].replaceFirst("\\$.*", "");
            if (testClasses.contains(topLevel) && !expected.contains(new TestId(f[1], method))) {
                problems.add(module + ": JUnit ran " + f[1] + "#" + method + " tagged " + TAG + ", which the scan of"
                        + " the test sources did not find: .ci/NoSkippedRealCodex.java must learn how it is tagged");
            }
        }
        return listed;
    }

    private static String classesOf(Set<TestId> ids) {
        Set<String> classes = new TreeSet<>();
        ids.forEach(id -> classes.add(id.className().replaceFirst(".*\\.", "")));
        return String.join(", ", classes);
    }

    private static Element xml(Path file) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile()).getDocumentElement();
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> out = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                out.add(e);
            }
        }
        return out;
    }
}
