package dev.codexclient.errors;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README's table of exceptions is the errors package as it is: every exception of the package has a row, and a
 * row drawn under another ({@code ├}, {@code └}) is a subclass of it, every other one a direct subclass of
 * {@link CodexException}.
 */
class ExceptionTableTest {
    private static final Pattern ROW = Pattern.compile("^\\| (├ |└ )?`(Codex\\w+Exception)` \\|", Pattern.MULTILINE);

    @Test
    void theReadmesTableNamesEveryExceptionUnderItsSuperclass() throws Exception {
        Path root = Path.of("").toAbsolutePath();
        while (!Files.isRegularFile(root.resolve("README.md")) || !Files.isDirectory(root.resolve("codex-client-core"))) {
            root = root.getParent();
        }
        String readme = Files.readString(root.resolve("README.md"), StandardCharsets.UTF_8);
        Map<String, String> parents = new LinkedHashMap<>();
        String top = null;
        Matcher m = ROW.matcher(readme);
        while (m.find()) {
            String name = m.group(2);
            if (m.group(1) == null) {
                top = name;
                parents.put(name, "CodexException");
            } else {
                parents.put(name, top);
            }
        }
        assertThat(parents).as("rows of the table").isNotEmpty();
        for (Map.Entry<String, String> row : parents.entrySet()) {
            Class<?> type = Class.forName("dev.codexclient.errors." + row.getKey());
            assertThat(type.getSuperclass().getSimpleName()).as(row.getKey()).isEqualTo(row.getValue());
        }
        assertThat(parents.keySet()).containsExactlyInAnyOrderElementsOf(exceptionsOfThePackage());
    }

    private static List<String> exceptionsOfThePackage() throws IOException {
        List<String> names = new ArrayList<>();
        try (Stream<Path> files = Files.list(Path.of("src/main/java/dev/codexclient/errors"))) {
            files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith("Exception.java"))
                    .map(n -> n.substring(0, n.length() - ".java".length()))
                    .filter(n -> !n.equals("CodexException")).forEach(names::add);
        }
        return names;
    }
}
