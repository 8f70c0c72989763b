package dev.codexclient;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The glossary of the package documentation ({@code dev/codexclient/package-info.java}) names, after each concept,
 * the words that are not used for it any more ("<em>Not:</em> ..."). This test reads those words from the glossary
 * itself and fails on each one found in the project's main sources (every module's {@code src/main/java}, generated
 * code aside) and its Markdown guides (the changelog aside, which records the renames). A deprecated alias, which
 * keeps an old name for one release, is exempt: its Javadoc carries {@code @deprecated}.
 *
 * <p>A word matches at the start of a word, whatever its case and ending ({@code restore} finds "restored" and
 * "restoring", not the "…Restore…" inside another identifier), so a protocol name such as
 * {@code ModelProviderAuthRecoveryStarted} does not count as "recovery".
 */
class GlossaryTest {

    private static final Path GLOSSARY = Path.of("src/main/java/dev/codexclient/package-info.java");

    @Test
    void theGlossaryRulesOutWords() {
        assertThat(ruledOut()).contains("recovery", "event listener", "router", "callback lane",
                "gracefulCloseTimeout");
    }

    @Test
    void noMainSourceOrGuideUsesAWordTheGlossaryRulesOut() throws IOException {
        Path root = repositoryRoot();
        List<Pattern> words = ruledOut().stream().map(GlossaryTest::pattern).toList();
        List<String> found = new ArrayList<>();
        for (Path file : scanned(root)) {
            found.addAll(offences(root, file, words));
        }
        assertThat(found).as("words the glossary of dev/codexclient/package-info.java rules out (its <em>Not:</em> "
                + "lists); use the glossary's word instead").isEmpty();
    }

    @Test
    void theCheckFindsAWordInProseAndInIdentifiersButNotInsideAnotherName() {
        List<Pattern> words = List.of(pattern("restore"), pattern("router"), pattern("recovery"));
        assertThat(matches(words, "the restored connection")).isTrue();
        assertThat(matches(words, "private Restoring x;")).isTrue();
        assertThat(matches(words, "ThreadState router = held;")).isTrue();
        assertThat(matches(words, "new ServerRequestRouter(mapper)")).isFalse();
        assertThat(matches(words, "ServerNotification.ModelProviderAuthRecoveryStarted")).isFalse();
        assertThat(matches(words, "a restart replaces it")).isFalse();
    }

    @Test
    void aWordSplitOverTwoLinesIsFoundAtTheLineItStarts() {
        List<Pattern> words = List.of(pattern("event listener"));
        List<String> lines = List.of(
                "    /**",
                "     * Registers the client's event",
                "     * listener, once.",
                "     */",
                "A guide that speaks of an event",
                "listener in prose.");
        assertThat(offences("X.java", lines, words)).containsExactly("X.java:2: event listener",
                "X.java:5: event listener");
    }

    @Test
    void aDeprecatedAliasKeepsItsOldNameAndNothingElseDoes() {
        List<Pattern> words = List.of(pattern("gracefulCloseTimeout"));
        List<String> lines = List.of(
                "    /**",
                "     * The former name.",
                "     * @deprecated renamed to {@link #closeTimeout(Duration)}",
                "     */",
                "    @Deprecated(since = \"0.1.0\", forRemoval = true)",
                "    public Builder gracefulCloseTimeout(Duration timeout) {",
                "        return closeTimeout(timeout);",
                "    }",
                "    public Builder other() { gracefulCloseTimeout(null); }");
        assertThat(offences("X.java", lines, words)).containsExactly("X.java:9: gracefulCloseTimeout");
    }

    // ------------------------------------------------------------------------------------------------ reading

    /** The ruled-out words of the glossary: each {@code {@code …}} after an {@code <em>Not:</em>} of an entry. */
    static Set<String> ruledOut() {
        String text = read(GLOSSARY);
        Set<String> words = new LinkedHashSet<>();
        Matcher not = Pattern.compile("<em>Not:</em>(.*?)</dd>", Pattern.DOTALL).matcher(text);
        while (not.find()) {
            Matcher code = Pattern.compile("\\{@code ([^}]+)}").matcher(not.group(1));
            while (code.find()) {
                words.add(code.group(1).trim());
            }
        }
        return words;
    }

    /**
     * A word as the check looks for it: at the start of a word (no letter or digit before it), whatever its case;
     * a trailing "e" or "y" is dropped so that the word's other forms match too ("restore" → "restored").
     */
    static Pattern pattern(String word) {
        String stem = word.length() > 4 && (word.endsWith("e") || word.endsWith("y"))
                ? word.substring(0, word.length() - 1) : word;
        String[] parts = stem.split(" ");
        String body = Stream.of(parts).map(Pattern::quote).collect(Collectors.joining("\\s+(?:\\*\\s+)?"));
        // The rest of the word is part of the match only so that the report shows the word as written.
        return Pattern.compile("(?<![\\p{L}\\p{N}])" + body + "[\\p{L}\\p{N}]*",
                Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
    }

    private static boolean matches(List<Pattern> words, String line) {
        return words.stream().anyMatch(p -> p.matcher(line).find());
    }

    private static List<String> offences(Path root, Path file, List<Pattern> words) {
        return offences(root.relativize(file).toString(), read(file).lines().toList(), words);
    }

    /**
     * The places that use a ruled-out word, skipping each deprecated member's Javadoc and declaration. The words are
     * looked for in the whole text, not line by line, so that one split over two lines (a Javadoc's or a
     * paragraph's line break between "event" and "listener") is found too; each is reported at the line it starts.
     */
    static List<String> offences(String name, List<String> lines, List<Pattern> words) {
        StringBuilder text = new StringBuilder();
        int[] lineStarts = new int[lines.size()];
        int javadocStart = -1;
        boolean deprecatedDeclarationAhead = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            String trimmed = line.trim();
            if (trimmed.startsWith("/**")) {
                javadocStart = i;
            }
            if (javadocStart >= 0 && trimmed.contains("@deprecated")) {
                deprecatedDeclarationAhead = true;
            }
            if (javadocStart >= 0 && trimmed.contains("*/")) {
                javadocStart = -1;
            }
            lineStarts[i] = text.length();
            if (deprecatedDeclarationAhead) {
                // The alias's own Javadoc and signature name the old word; its body names the new one.
                if (!trimmed.startsWith("@") && !trimmed.startsWith("*") && !trimmed.startsWith("/**")
                        && (trimmed.endsWith("{") || trimmed.endsWith(";"))) {
                    deprecatedDeclarationAhead = false;
                }
                // Blank, so that no match runs into or out of it.
                text.append('\n');
                continue;
            }
            text.append(line).append('\n');
        }
        List<String> found = new ArrayList<>();
        for (Pattern p : words) {
            Matcher m = p.matcher(text);
            while (m.find()) {
                int line = java.util.Arrays.binarySearch(lineStarts, m.start());
                line = line >= 0 ? line : -line - 2;
                found.add(name + ":" + (line + 1) + ": " + m.group().replaceAll("\\s+(\\*\\s+)?", " "));
            }
        }
        found.sort(java.util.Comparator.comparingInt(f -> Integer.parseInt(f.split(":")[1])));
        return found;
    }

    /** Every module's main Java sources (generated code aside) and every Markdown file but the changelog. */
    private static List<Path> scanned(Path root) throws IOException {
        Path glossary = GLOSSARY.toAbsolutePath().normalize();
        try (Stream<Path> all = Files.walk(root)) {
            return all.filter(Files::isRegularFile)
                    .filter(p -> {
                        String rel = root.relativize(p).toString().replace('\\', '/');
                        // target/ at the root too: CI's release bundle copies the checkout into target/release.
                        // benchmarks/results/: a local benchmark run's reports, ignored by git like target/.
                        if (rel.startsWith(".") || rel.startsWith("target/") || rel.contains("/target/")
                                || rel.startsWith("benchmarks/results/")
                                || rel.contains("node_modules")
                                || rel.contains("/src/generated/") || rel.startsWith("schema/")) {
                            return false;
                        }
                        if (rel.endsWith(".md")) {
                            return !rel.equals("CHANGELOG.md");
                        }
                        return rel.endsWith(".java") && rel.contains("/src/main/java/");
                    })
                    .filter(p -> !p.toAbsolutePath().normalize().equals(glossary))
                    .sorted()
                    .toList();
        }
    }

    /** The checkout's root: the nearest directory above the module holding the parent POM. */
    static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        for (Path d = dir; d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("pom.xml")) && Files.isDirectory(d.resolve("codex-client-core"))) {
                return d;
            }
        }
        throw new IllegalStateException("no checkout root above " + dir);
    }

    private static String read(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

}
