package dev.codexclient.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The examples print UTF-8 in a JVM started with no locale at all, as a login shell without LANG starts it. */
class Utf8ConsoleTest {

    @Test
    void theOutputIsUtf8WithoutALocale() throws Exception {
        String text = Utf8Console.SAMPLE;
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        ProcessBuilder pb = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                Utf8Console.class.getName()).redirectError(ProcessBuilder.Redirect.INHERIT);
        pb.environment().keySet().removeIf(name -> name.equals("LANG") || name.startsWith("LC_")
                || name.equals("JAVA_TOOL_OPTIONS") || name.equals("JDK_JAVA_OPTIONS"));
        Process process = pb.start();
        byte[] out = process.getInputStream().readAllBytes();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).isZero();
        assertThat(new String(out, StandardCharsets.UTF_8)).isEqualTo(text + System.lineSeparator());
    }

    @Test
    void withoutItTheSameJvmPrintsQuestionMarks() throws Exception {
        // The control: what a JVM with no locale does on its own, so the test above can fail.
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path source = Path.of("target", "no-locale", "Plain.java");
        Files.createDirectories(source.getParent());
        Files.writeString(source, "public class Plain { public static void main(String[] a) { "
                + "System.out.println(\"caf\\u00e9\"); } }");
        ProcessBuilder pb = new ProcessBuilder(java.toString(), source.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT);
        pb.environment().keySet().removeIf(name -> name.equals("LANG") || name.startsWith("LC_")
                || name.equals("JAVA_TOOL_OPTIONS") || name.equals("JDK_JAVA_OPTIONS"));
        Process process = pb.start();
        byte[] out = process.getInputStream().readAllBytes();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(new String(out, StandardCharsets.UTF_8)).isNotEqualTo("café" + System.lineSeparator());
    }
}
