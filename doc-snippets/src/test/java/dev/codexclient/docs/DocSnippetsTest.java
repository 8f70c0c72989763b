package dev.codexclient.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.File;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * Every Java snippet a user may copy compiles: each {@code ```java} block of the README, of every guide under
 * {@code docs/} and of every module's README, read from the Markdown as it is now, against every published module
 * and the frameworks the guides show. A new guide is picked up without any change here.
 *
 * <p>A snippet is compiled as what it looks like: a compilation unit when it declares top-level types only, the
 * members of a class when it declares fields and methods, and otherwise the body of a method (local records and
 * interfaces allowed). A guide says what a snippet takes for granted in HTML comments, which Markdown does not
 * show:
 * <ul>
 *   <li>{@code <!-- java imports: org.springframework.stereotype.Service, dev.codexclient.agent.* -->} anywhere in
 *       the file: imports for all its snippets, besides the project's own packages and {@code java.util},
 *       {@code java.time}, {@code java.nio.file}, {@code java.util.concurrent} and {@code java.util.function};</li>
 *   <li>{@code <!-- java context: CodexClient codex, ThreadStartParams params -->} right before a snippet: the
 *       variables it uses without declaring them;</li>
 *   <li>{@code <!-- java declare: record LookupTicket(String id) {} -->} right before a snippet: members of the
 *       class it is compiled in (a helper method or type it calls);</li>
 *   <li>{@code <!-- java kind: unit | members | body | file -->} right before a snippet, when the guess is wrong;
 *       a snippet with import lines of its own is a whole file, compiled with those imports alone (so that a
 *       quickstart's imports are checked too).</li>
 * </ul>
 * In a snippet compiled as class members, the context's variables are fields of that class.
 */
class DocSnippetsTest {

    private static final List<String> DEFAULT_IMPORTS = List.of(
            "dev.codexclient.*", "dev.codexclient.errors.*", "dev.codexclient.protocol.*",
            "dev.codexclient.telemetry.*", "dev.codexclient.transport.*", "dev.codexclient.pool.*",
            "dev.codexclient.testkit.*", "dev.codexclient.agent.*", "dev.codexclient.micrometer.*",
            "dev.codexclient.conversation.*", "java.util.*",
            "java.util.concurrent.*", "java.util.function.*", "java.time.*", "java.nio.file.*", "java.io.IOException");

    private static final Pattern BLOCK = Pattern.compile("(?m)^```java\\s*\\n(.*?)^```", Pattern.DOTALL);
    private static final Pattern IMPORTS = Pattern.compile("<!--\\s*java imports:(.*?)-->", Pattern.DOTALL);
    private static final Pattern DIRECTIVE = Pattern.compile(
            "<!--\\s*java (context|kind|declare):((?:(?!-->).)*)-->\\s*$", Pattern.DOTALL);
    private static final Pattern TYPE = Pattern.compile(
            "^(?:@\\w+(?:\\([^)]*\\))?\\s+)*(?:(?:public|final|abstract|sealed|non-sealed|static)\\s+)*"
                    + "(?:class|record|interface|enum|@interface)\\s");
    private static final Pattern MEMBER = Pattern.compile(
            "^(?:(?:public|private|protected|static|final|abstract|synchronized)\\s+)+\\S"
                    + "|^@\\w+"
                    + "|^[\\w<>\\[\\], ?.]+\\s+\\w+\\s*\\([^;]*\\)\\s*(?:throws [\\w., ]+)?\\s*\\{\\s*$");

    /** One snippet: where it is, what it is, and the source it becomes. */
    record Snippet(String file, int firstLine, String kind, String code, List<String> imports, String context,
                   String declared, String pkg) {

        String className() {
            return "Snippet";
        }

        /** The compilation unit, and the line of the unit where the snippet's first line is. */
        String source(StringBuilder header) {
            header.append("package ").append(pkg).append(";\n");
            if (kind.equals("file")) {
                // A whole source file, with its own imports: nothing it does not import is taken for granted.
                return header + code;
            }
            for (String i : imports) {
                header.append("import ").append(i).append(";\n");
            }
            String helpers = declared.isBlank() ? "" : " " + declared.replace('\n', ' ');
            return switch (kind) {
                case "unit" -> header + code;
                case "members" -> header + "class Snippet {" + fields() + helpers + "\n" + code + "\n}\n";
                default -> header + "class Snippet {" + helpers + "\n    void snippet(" + context
                        + ") throws Exception {\n" + code + "\n    }\n}\n";
            };
        }

        /** The context's variables as fields, on the class's first line. */
        private String fields() {
            StringBuilder f = new StringBuilder();
            for (String v : context.split(",(?![^<]*>)")) {
                if (!v.isBlank()) {
                    f.append(' ').append(v.trim()).append(';');
                }
            }
            return f.toString();
        }

        int headerLines() {
            int lines = 1 + imports.size();
            return switch (kind) {
                case "file" -> 1;
                case "unit" -> lines;
                case "members" -> lines + 1;
                default -> lines + 2;
            };
        }
    }

    @Test
    void everyJavaSnippetOfTheReadmeAndTheGuidesCompiles() throws IOException {
        List<Snippet> snippets = snippets(repositoryRoot());
        assertThat(snippets).as("the snippets found").hasSizeGreaterThan(20);

        List<String> errors = compile(snippets);

        assertThat(errors).as("snippets that do not compile, as file:line of the Markdown: message").isEmpty();
    }

    @Test
    void aSnippetIsTakenForWhatItLooksLike() {
        assertThat(kind("record Verdict(boolean ok) {}\n\ntry (var x = open()) {\n}\n")).isEqualTo("body");
        assertThat(kind("@Service\nclass Reviewer {\n}\n")).isEqualTo("unit");
        assertThat(kind("static final int N = 1;\n\n@Bean\nstatic void codex(Registry r) {\n}\n"))
                .isEqualTo("members");
        assertThat(kind("CodexClient codex = CodexClient.builder().build();\n")).isEqualTo("body");
        assertThat(kind("import dev.codexclient.CodexClient;\n\nclass Quickstart {\n}\n")).isEqualTo("file");
    }

    @Test
    void aSnippetThatDoesNotCompileIsReportedWhereItIsInTheMarkdown() {
        Snippet broken = new Snippet("docs/x.md", 10, "body", "int a = 1;\nString b = a;\n", DEFAULT_IMPORTS, "",
                "", "snippets.broken");
        assertThat(compile(List.of(broken))).singleElement().asString().startsWith("docs/x.md:11: ")
                .contains("incompatible types");
    }

    // ------------------------------------------------------------------------------------------------ reading

    static List<Snippet> snippets(Path root) throws IOException {
        List<Path> files = new ArrayList<>();
        files.add(root.resolve("README.md"));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        try (Stream<Path> modules = Files.list(root)) {
            modules.map(m -> m.resolve("README.md")).filter(Files::isRegularFile).filter(p -> !p.getParent()
                    .equals(root)).sorted().forEach(files::add);
        }
        List<Snippet> all = new ArrayList<>();
        for (Path f : files) {
            String rel = root.relativize(f).toString().replace('\\', '/');
            String text = Files.readString(f, StandardCharsets.UTF_8);
            List<String> imports = new ArrayList<>(DEFAULT_IMPORTS);
            Matcher im = IMPORTS.matcher(text);
            while (im.find()) {
                for (String i : im.group(1).split("[,\\n]")) {
                    if (!i.isBlank()) {
                        imports.add(i.trim());
                    }
                }
            }
            Matcher m = BLOCK.matcher(text);
            int n = 0;
            while (m.find()) {
                String code = m.group(1);
                String before = text.substring(0, m.start()).stripTrailing();
                String context = "";
                String declared = "";
                String kind = kind(code);
                // The directives right before the block, nearest last.
                while (true) {
                    Matcher d = DIRECTIVE.matcher(before);
                    if (!d.find()) {
                        break;
                    }
                    switch (d.group(1)) {
                        case "context" -> context = d.group(2).trim();
                        case "declare" -> declared = d.group(2).trim();
                        default -> kind = d.group(2).trim();
                    }
                    before = before.substring(0, d.start()).stripTrailing();
                }
                int line = 1 + (int) text.substring(0, m.start(1)).chars().filter(c -> c == '\n').count();
                String pkg = "snippets." + rel.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_") + ".s" + n++;
                all.add(new Snippet(rel, line, kind, code, imports, context, declared, pkg));
            }
        }
        return all;
    }

    /** What a snippet looks like: top-level types only, class members, or statements. */
    static String kind(String code) {
        if (code.lines().anyMatch(l -> l.startsWith("import "))) {
            return "file";
        }
        boolean member = false;
        boolean type = false;
        for (String line : code.split("\n")) {
            if (line.isBlank() || Character.isWhitespace(line.charAt(0)) || line.startsWith("}")
                    || line.startsWith("//") || line.startsWith("/*") || line.startsWith("*")) {
                continue;
            }
            if (TYPE.matcher(line).find()) {
                type = true;
            } else if (line.startsWith("@")) {
                continue; // an annotation: the declaration on the next line says what it belongs to
            } else if (MEMBER.matcher(line).find()) {
                member = true;
            } else {
                return "body";
            }
        }
        return member ? "members" : type ? "unit" : "body";
    }

    // ------------------------------------------------------------------------------------------------ compiling

    static List<String> compile(List<Snippet> snippets) {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        List<Source> sources = new ArrayList<>();
        for (Snippet s : snippets) {
            sources.add(new Source(s, s.source(new StringBuilder())));
        }
        Path out;
        try {
            out = Files.createTempDirectory("doc-snippets");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT,
                StandardCharsets.UTF_8)) {
            List<String> options = List.of("-classpath", classPath(), "-d", out.toString(), "-proc:none",
                    "-Xlint:none", "-nowarn", "-parameters");
            javac.getTask(null, files, diagnostics, options, null, sources).call();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            // Only whether the snippets compile matters: their classes go, so the build leaves nothing in /tmp.
            deleteTree(out);
        }
        List<String> errors = new ArrayList<>();
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            if (d.getKind() != Diagnostic.Kind.ERROR) {
                continue;
            }
            if (d.getSource() instanceof Source s) {
                long line = d.getLineNumber() - s.snippet.headerLines() + s.snippet.firstLine() - 1;
                // The message and what it names ("symbol: variable codex"), without the location javac adds.
                errors.add(s.snippet.file() + ":" + line + ": " + String.join(" ", d.getMessage(Locale.ROOT)
                        .lines().filter(l -> !l.trim().startsWith("location:")).map(String::trim).toList()));
            } else {
                errors.add(String.valueOf(d));
            }
        }
        return errors;
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The test's own class path: every published module and the frameworks the guides show. */
    private static String classPath() {
        String surefire = System.getProperty("surefire.test.class.path");
        return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    }

    private static final class Source extends SimpleJavaFileObject {
        final Snippet snippet;
        private final String code;

        Source(Snippet snippet, String code) {
            super(URI.create("string:///" + snippet.pkg().replace('.', '/') + "/" + fileName(snippet) + ".java"),
                    Kind.SOURCE);
            this.snippet = snippet;
            this.code = code;
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return code;
        }
    }

    /** A unit's file is named after its public type, as javac requires; the others hold class Snippet. */
    private static String fileName(Snippet s) {
        Matcher m = Pattern.compile("(?m)^public\\s+(?:(?:final|abstract|sealed)\\s+)*(?:class|record|interface|enum)"
                + "\\s+(\\w+)").matcher(s.code());
        return s.kind().equals("unit") && m.find() ? m.group(1) : s.className();
    }

    /** The checkout's root: the nearest directory above this module holding the README. */
    static Path repositoryRoot() {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("README.md")) && Files.isDirectory(d.resolve("docs"))) {
                return d;
            }
        }
        throw new IllegalStateException("no checkout root above " + Path.of("").toAbsolutePath()
                + File.separator);
    }
}
