import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Fails when a test tagged real-codex did not run: see .ci/no-skipped-real-codex, which runs this file.
 *
 * <p>Per module: target/real-codex-tests.tsv (written by the testkit's RealCodexTestReport, a JUnit launcher
 * listener that knows the tags) lists every real-codex test with its outcome; any SKIPPED, ABORTED or NOT_RUN is a
 * failure. The surefire and failsafe XML reports are read as well: a skipped test case in a class that has real-codex
 * tests fails too, so that the XML, which has no tags, still backs up the listener. A module whose test sources tag
 * tests real-codex and that has test reports but no real-codex report has not registered the listener: a failure.
 */
public final class NoSkippedRealCodex {
    private static final String REPORT = "target/real-codex-tests.tsv";
    private static final Set<String> NOT_RUN = Set.of("SKIPPED", "ABORTED", "NOT_RUN");

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args.length > 0 ? args[0] : ".").toAbsolutePath().normalize();
        List<String> problems = new ArrayList<>();
        int ran = 0;
        List<Path> modules;
        try (Stream<Path> dirs = Files.list(root)) {
            modules = dirs.filter(d -> Files.isDirectory(d.resolve("target"))).sorted().toList();
        }
        for (Path module : modules) {
            String name = root.relativize(module).toString();
            List<Path> xml = xmlReports(module);
            Path tsv = module.resolve(REPORT);
            if (!Files.isRegularFile(tsv)) {
                if (!xml.isEmpty() && tagsRealCodexTests(module)) {
                    problems.add(name + ": its tests are tagged real-codex and ran, but it wrote no " + REPORT
                            + " (register dev.codexclient.testkit.internal.junit.RealCodexTestReport in"
                            + " src/test/resources/META-INF/services/org.junit.platform.launcher"
                            + ".TestExecutionListener)");
                }
                continue;
            }
            Set<String> classes = new TreeSet<>();
            int moduleRan = 0;
            for (String line : Files.readAllLines(tsv, StandardCharsets.UTF_8)) {
                if (line.isBlank()) {
                    continue;
                }
                String[] f = line.split("\t", -1);
                classes.add(f[1]);
                if (NOT_RUN.contains(f[0])) {
                    problems.add(name + ": " + f[0] + " " + f[1] + " " + f[2] + (f.length > 3 && !f[3].isEmpty()
                            ? " (" + f[3] + ")" : ""));
                } else {
                    moduleRan++;
                }
            }
            for (Path report : xml) {
                Element suite = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(report.toFile())
                        .getDocumentElement();
                NodeList cases = suite.getElementsByTagName("testcase");
                for (int i = 0; i < cases.getLength(); i++) {
                    Element c = (Element) cases.item(i);
                    if (classes.contains(c.getAttribute("classname"))
                            && c.getElementsByTagName("skipped").getLength() > 0) {
                        problems.add(name + ": skipped in " + root.relativize(report) + ": "
                                + c.getAttribute("classname") + " " + c.getAttribute("name"));
                    }
                }
            }
            System.out.printf("%s: %d real-codex tests ran%n", name, moduleRan);
            ran += moduleRan;
        }
        if (ran == 0) {
            problems.add("no real-codex test ran at all under " + root + " (none of the modules wrote " + REPORT
                    + " with a test that ran)");
        }
        if (!problems.isEmpty()) {
            System.err.println("real-codex tests that did not run (" + problems.size() + "):");
            problems.forEach(p -> System.err.println("  " + p));
            System.exit(1);
        }
        System.out.printf("all %d real-codex tests ran; none was skipped%n", ran);
    }

    private static List<Path> xmlReports(Path module) throws IOException {
        List<Path> out = new ArrayList<>();
        for (String dir : List.of("target/surefire-reports", "target/failsafe-reports")) {
            Path d = module.resolve(dir);
            if (Files.isDirectory(d)) {
                try (Stream<Path> files = Files.list(d)) {
                    out.addAll(files.filter(f -> f.getFileName().toString().matches("TEST-.*\\.xml")).sorted()
                            .collect(Collectors.toList()));
                }
            }
        }
        return out;
    }

    private static boolean tagsRealCodexTests(Path module) throws IOException {
        Path sources = module.resolve("src/test/java");
        if (!Files.isDirectory(sources)) {
            return false;
        }
        try (Stream<Path> files = Files.walk(sources)) {
            return files.filter(f -> f.toString().endsWith(".java")).anyMatch(f -> {
                try {
                    return Files.readString(f).contains("\"real-codex\"");
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
