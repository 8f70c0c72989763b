package dev.codexclient.apicheck;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Compares each published module's public API ({@link ApiDump} of its compiled classes) with the one recorded in
 * {@code api/<artifactId>.api}, and fails with the difference and the command that records the new one; or, with
 * {@code --update}, records it. A change of a recorded API is a diff in review, with its line in CHANGELOG.md.
 *
 * <pre>
 * ApiCheck [--update] --root DIR
 *     the modules are the dependencies of DIR/api/pom.xml in the group dev.codexclient, each read from
 *     MODULE_DIR/target/classes (MODULE_DIR: the reactor module of that artifactId); every jar the BOM publishes
 *     must be one of them
 * ApiCheck [--update] --api-dir DIR ARTIFACT=CLASSES_DIR ...
 *     the given modules only (what .ci/self-test runs on a module of its own)
 * </pre>
 *
 * Exit status: 0 when every module's API is the recorded one (or was recorded), 1 when one differs, 2 on an error.
 */
public final class ApiCheck {
    /** The one command that records the API of every module as the code has it now. */
    static final String UPDATE_COMMAND = "mvn -B -q -pl api -am verify -DskipTests -Dapi.update";
    private static final String GROUP = "dev.codexclient";

    private ApiCheck() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        boolean update = false;
        Path root = null;
        Path apiDir = null;
        Map<String, Path> modules = new LinkedHashMap<>();
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--update" -> update = true;
                    case "--check" -> update = false;
                    case "--root" -> root = Path.of(args[++i]).toAbsolutePath().normalize();
                    case "--api-dir" -> apiDir = Path.of(args[++i]);
                    default -> {
                        int eq = args[i].indexOf('=');
                        if (eq < 1) {
                            throw new IllegalArgumentException("unknown argument " + args[i]);
                        }
                        modules.put(args[i].substring(0, eq), Path.of(args[i].substring(eq + 1)));
                    }
                }
            }
            if (root != null) {
                apiDir = root.resolve("api");
                modules.putAll(reactorModules(root, err));
            }
            if (apiDir == null || modules.isEmpty()) {
                throw new IllegalArgumentException("usage: ApiCheck [--update] --root DIR | --api-dir DIR ARTIFACT=CLASSES...");
            }
        } catch (IllegalArgumentException | IOException e) {
            err.println("api-check: " + e.getMessage());
            return 2;
        }
        int differ = 0;
        try {
            for (Map.Entry<String, Path> m : modules.entrySet()) {
                Path classes = m.getValue();
                if (!Files.isDirectory(classes)) {
                    err.println("api-check: " + m.getKey() + " has no compiled classes in " + classes
                            + ": build it first (" + UPDATE_COMMAND + " builds and records)");
                    return 2;
                }
                String api = ApiDump.dump(classes);
                Path file = apiDir.resolve(m.getKey() + ".api");
                String recorded = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : null;
                if (api.equals(recorded)) {
                    continue;
                }
                if (update) {
                    Files.createDirectories(apiDir);
                    Files.writeString(file, api, StandardCharsets.UTF_8);
                    out.println("api-check: recorded " + file);
                } else {
                    differ++;
                    err.println("api-check: the public API of " + m.getKey() + " differs from " + file
                            + (recorded == null ? " (no such file)" : "") + ":");
                    err.print(diff(recorded == null ? "" : recorded, api));
                }
            }
        } catch (IOException | RuntimeException e) {
            err.println("api-check: " + e);
            return 2;
        }
        if (differ > 0) {
            err.println("api-check: " + differ + " module(s) changed their public API. If that is meant, record it with"
                    + "\n    " + UPDATE_COMMAND
                    + "\n  and add the change to CHANGELOG.md with its migration (docs/RELEASING.md, \"The public API\").");
            return 1;
        }
        out.println("api-check: the public API of " + modules.size() + " modules is " + (update ? "recorded" : "the recorded one")
                + " (" + String.join(", ", modules.keySet()) + ")");
        return 0;
    }

    /**
     * The modules api/pom.xml depends on, by artifactId, with their classes; checked against the jars the BOM
     * publishes, so that a module published without a recorded API fails here rather than going unnoticed.
     */
    static Map<String, Path> reactorModules(Path root, PrintStream err) throws IOException {
        List<String> listed = artifacts(Files.readString(root.resolve("api/pom.xml")), "dependencies");
        listed.remove("codex-client-parent");
        Map<String, Path> dirs = new LinkedHashMap<>();
        collectModules(root, dirs);
        Map<String, Path> out = new LinkedHashMap<>();
        for (String a : listed) {
            Path dir = dirs.get(a);
            if (dir == null) {
                throw new IllegalArgumentException("api/pom.xml depends on " + a + ", which no module of the build is");
            }
            out.put(a, dir.resolve("target/classes"));
        }
        Path bom = root.resolve("codex-client-bom/pom.xml");
        if (Files.exists(bom)) {
            TreeSet<String> unrecorded = new TreeSet<>();
            for (String published : artifacts(Files.readString(bom), "dependencyManagement")) {
                Path dir = dirs.get(published);
                boolean jar = dir != null && !Files.readString(dir.resolve("pom.xml")).contains("<packaging>pom</packaging>");
                if (jar && !out.containsKey(published)) {
                    unrecorded.add(published);
                }
            }
            if (!unrecorded.isEmpty()) {
                throw new IllegalArgumentException("the BOM publishes " + String.join(", ", unrecorded)
                        + " but api/pom.xml does not list it: copy one of its <dependency> lines for each (it builds the"
                        + " module before the check), then run " + UPDATE_COMMAND);
            }
        }
        return out;
    }

    /** The module directories of the build by artifactId: the root POM's modules, recursively. */
    private static void collectModules(Path dir, Map<String, Path> out) throws IOException {
        String pom = Files.readString(dir.resolve("pom.xml"));
        String withoutParent = pom.replaceFirst("(?s)<parent>.*?</parent>", "");
        Matcher id = Pattern.compile("<artifactId>([^<]+)</artifactId>").matcher(withoutParent);
        if (id.find()) {
            out.put(id.group(1).trim(), dir);
        }
        Matcher modules = Pattern.compile("(?s)<modules>(.*?)</modules>").matcher(pom);
        if (modules.find()) {
            Matcher module = Pattern.compile("<module>([^<]+)</module>").matcher(modules.group(1));
            while (module.find()) {
                Path child = dir.resolve(module.group(1).trim()).normalize();
                if (Files.exists(child.resolve("pom.xml"))) {
                    collectModules(child, out);
                }
            }
        }
    }

    /** The artifactIds of the project's group in a POM's section ({@code dependencies}, {@code dependencyManagement}). */
    private static List<String> artifacts(String pom, String section) {
        List<String> out = new ArrayList<>();
        Matcher s = Pattern.compile("(?s)<" + section + ">(.*)</" + section + ">").matcher(pom);
        if (!s.find()) {
            return out;
        }
        Matcher d = Pattern.compile("(?s)<dependency>(.*?)</dependency>").matcher(s.group(1));
        while (d.find()) {
            Matcher g = Pattern.compile("<groupId>([^<]+)</groupId>").matcher(d.group(1));
            Matcher a = Pattern.compile("<artifactId>([^<]+)</artifactId>").matcher(d.group(1));
            boolean ours = !g.find() || g.group(1).trim().equals(GROUP) || g.group(1).contains("project.groupId");
            if (ours && a.find()) {
                out.add(a.group(1).trim());
            }
        }
        return out;
    }

    /**
     * The lines removed ({@code -}) and added ({@code +}), each under the type it belongs to: a longest common
     * subsequence of the lines between the common start and end, or, where that part is too long to compare line by
     * line, the lines only in one of the two.
     */
    static String diff(String before, String after) {
        List<String> a = before.lines().toList();
        List<String> b = after.lines().toList();
        int start = 0;
        while (start < a.size() && start < b.size() && a.get(start).equals(b.get(start))) {
            start++;
        }
        int endA = a.size();
        int endB = b.size();
        while (endA > start && endB > start && a.get(endA - 1).equals(b.get(endB - 1))) {
            endA--;
            endB--;
        }
        List<String> script = new ArrayList<>(); // each line with its mark: ' ', '-' or '+'
        for (int k = 0; k < start; k++) {
            script.add(" " + a.get(k));
        }
        List<String> midA = a.subList(start, endA);
        List<String> midB = b.subList(start, endB);
        if ((long) midA.size() * midB.size() <= 4_000_000L) {
            int n = midA.size();
            int m = midB.size();
            int[][] lcs = new int[n + 1][m + 1];
            for (int i = n - 1; i >= 0; i--) {
                for (int j = m - 1; j >= 0; j--) {
                    lcs[i][j] = midA.get(i).equals(midB.get(j)) ? lcs[i + 1][j + 1] + 1
                            : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
                }
            }
            int i = 0;
            int j = 0;
            while (i < n || j < m) {
                if (i < n && j < m && midA.get(i).equals(midB.get(j))) {
                    script.add(" " + midA.get(i++));
                    j++;
                } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
                    script.add("-" + midA.get(i++));
                } else {
                    script.add("+" + midB.get(j++));
                }
            }
        } else {
            java.util.Set<String> inB = new java.util.HashSet<>(midB);
            java.util.Set<String> inA = new java.util.HashSet<>(midA);
            midA.forEach(l -> script.add((inB.contains(l) ? " " : "-") + l));
            midB.stream().filter(l -> !inA.contains(l)).forEach(l -> script.add("+" + l));
        }
        StringBuilder out = new StringBuilder();
        String header = null;
        boolean headerShown = false;
        for (String line : script) {
            String text = line.substring(1);
            boolean isHeader = !text.startsWith(" ") && !text.isEmpty();
            if (isHeader && line.charAt(0) == ' ') {
                header = text;
                headerShown = false;
                continue;
            }
            if (line.charAt(0) == ' ') {
                continue;
            }
            if (!isHeader && header != null && !headerShown) {
                out.append("      ").append(header).append('\n');
                headerShown = true;
            }
            out.append("    ").append(line.charAt(0)).append(' ').append(text).append('\n');
        }
        return out.toString();
    }
}
