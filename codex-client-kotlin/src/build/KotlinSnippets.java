import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Writes every {@code ```kotlin} block of the README, of the guides under {@code docs/} and of the modules' READMEs
 * into a Kotlin source file, which the module's test compilation then compiles with its tests: a snippet that does
 * not compile fails the build. Run by the build (exec-maven-plugin, as a single-file Java program) before the test
 * compilation: {@code java KotlinSnippets.java ROOT OUTPUT_DIRECTORY}.
 *
 * <p>Each snippet keeps its line numbers: the file's header (package, imports, the function around the snippet) is
 * one line, followed by blank lines up to the snippet's first line in the Markdown, so that the compiler's
 * {@code docs_kotlin_md_42.kt:57:13} is {@code docs/kotlin.md} line 57. A snippet is the body of a suspend function
 * (local classes and functions allowed), or a file of its own when it declares {@code fun main} or says so. What a
 * snippet takes for granted is said in HTML comments, which Markdown does not show:
 * <ul>
 *   <li>{@code <!-- kotlin imports: org.example.Tickets, org.example.* -->} anywhere in the file: imports for all its
 *       snippets, beside the project's packages, the coroutines and {@code java.nio.file}, {@code java.time};</li>
 *   <li>{@code <!-- kotlin context: codex: CodexClient, thread: CodexThread -->} right before a snippet: the values it
 *       uses without declaring them (the function's parameters);</li>
 *   <li>{@code <!-- kotlin kind: file -->} right before a snippet: a file of its own (top-level declarations).</li>
 * </ul>
 * {@code import} lines inside a snippet go to the file's header, as Kotlin requires.
 */
public final class KotlinSnippets {
    private static final List<String> IMPORTS = List.of(
            "dev.codexclient.*", "dev.codexclient.errors.*", "dev.codexclient.protocol.*", "dev.codexclient.kotlin.*",
            "dev.codexclient.testkit.*", "kotlinx.coroutines.*", "kotlinx.coroutines.flow.*", "java.nio.file.Path",
            "kotlin.time.Duration.Companion.minutes", "kotlin.time.Duration.Companion.seconds");
    private static final Pattern BLOCK = Pattern.compile("(?m)^```kotlin\\s*\\n(.*?)^```", Pattern.DOTALL);
    private static final Pattern FILE_IMPORTS = Pattern.compile("<!--\\s*kotlin imports:(.*?)-->", Pattern.DOTALL);
    private static final Pattern DIRECTIVE = Pattern.compile(
            "<!--\\s*kotlin (context|kind):((?:(?!-->).)*)-->\\s*$", Pattern.DOTALL);
    private static final Pattern MAIN = Pattern.compile("(?m)^(suspend )?fun main\\(");

    private KotlinSnippets() {
    }

    public static void main(String[] args) throws IOException {
        Path root = Path.of(args[0]).toAbsolutePath().normalize();
        Path out = Path.of(args[1]);
        List<Path> files = new ArrayList<>();
        files.add(root.resolve("README.md"));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        try (Stream<Path> modules = Files.list(root)) {
            modules.map(m -> m.resolve("README.md")).filter(Files::isRegularFile)
                    .filter(p -> !p.getParent().equals(root)).sorted().forEach(files::add);
        }
        if (Files.isDirectory(out)) {
            try (Stream<Path> old = Files.list(out)) {
                for (Path p : old.toList()) {
                    Files.delete(p);
                }
            }
        }
        Files.createDirectories(out);
        int written = 0;
        boolean guide = false;
        for (Path file : files) {
            String rel = root.relativize(file).toString().replace('\\', '/');
            String text = Files.readString(file, StandardCharsets.UTF_8);
            Set<String> imports = new LinkedHashSet<>(IMPORTS);
            Matcher im = FILE_IMPORTS.matcher(text);
            while (im.find()) {
                for (String i : im.group(1).split("[,\\n]")) {
                    if (!i.isBlank()) {
                        imports.add(i.trim());
                    }
                }
            }
            Matcher m = BLOCK.matcher(text);
            while (m.find()) {
                String code = m.group(1);
                String before = text.substring(0, m.start()).stripTrailing();
                String context = "";
                String kind = MAIN.matcher(code).find() ? "file" : "body";
                while (true) {
                    Matcher d = DIRECTIVE.matcher(before);
                    if (!d.find()) {
                        break;
                    }
                    if (d.group(1).equals("context")) {
                        context = d.group(2).trim();
                    } else {
                        kind = d.group(2).trim();
                    }
                    before = before.substring(0, d.start()).stripTrailing();
                }
                int line = 1 + (int) text.substring(0, m.start(1)).chars().filter(c -> c == '\n').count();
                String name = rel.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_") + "_" + line;
                Files.writeString(out.resolve(name + ".kt"), source(name, kind, code, imports, context, line),
                        StandardCharsets.UTF_8);
                written++;
                guide |= rel.equals("docs/kotlin.md");
            }
        }
        if (!guide) {
            throw new IllegalStateException("no ```kotlin snippet found in docs/kotlin.md: the reading is broken");
        }
        System.out.println("[kotlin-snippets] " + written + " Kotlin snippets of the Markdown written to " + out);
    }

    /** The snippet as a file whose line {@code line} is the snippet's first, with everything else on line 1. */
    static String source(String name, String kind, String code, Set<String> fileImports, String context, int line) {
        StringBuilder header = new StringBuilder("@file:Suppress(\"UNUSED_VARIABLE\", \"UNUSED_PARAMETER\", "
                + "\"unused\", \"UNUSED_ANONYMOUS_PARAMETER\", \"RedundantSuspendModifier\") package snippets." + name
                + ";");
        Set<String> imports = new LinkedHashSet<>(fileImports);
        StringBuilder body = new StringBuilder();
        for (String l : code.split("\n", -1)) {
            if (l.startsWith("import ")) {
                imports.add(l.substring("import ".length()).trim());
                body.append('\n');     // the line stays, empty, so that the numbers do not move
            } else {
                body.append(l).append('\n');
            }
        }
        for (String i : imports) {
            header.append(" import ").append(i).append(';');
        }
        if (kind.equals("body")) {
            header.append(" suspend fun snippet(").append(context).append(") {");
        }
        StringBuilder s = new StringBuilder(header).append('\n');
        for (int i = 2; i < line; i++) {
            s.append('\n');
        }
        s.append(body);
        if (kind.equals("body")) {
            s.append("}\n");
        }
        return s.toString();
    }
}
