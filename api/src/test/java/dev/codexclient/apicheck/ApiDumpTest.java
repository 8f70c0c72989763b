package dev.codexclient.apicheck;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The dump of classes compiled here from sources of the test's own, and the check's verdict when one changes. */
class ApiDumpTest {
    @TempDir
    Path dir;

    private Path compile(String name, Map<String, String> sources) throws IOException {
        Path src = dir.resolve(name + "-src");
        Path out = dir.resolve(name + "-classes");
        List<String> args = new ArrayList<>(List.of("-d", out.toString(), "-g:none"));
        for (Map.Entry<String, String> s : sources.entrySet()) {
            Path file = src.resolve(s.getKey());
            Files.createDirectories(file.getParent());
            Files.writeString(file, s.getValue());
            args.add(file.toString());
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertThat(javac.run(null, null, null, args.toArray(String[]::new))).as("javac").isZero();
        return out;
    }

    private static final String WIDGET = """
            package acme;

            import java.io.IOException;
            import java.util.List;
            import java.util.Map;
            import java.util.Optional;

            /** A class of every kind of member. */
            public class Widget<T extends Comparable<T>> implements AutoCloseable {
                public static final String NAME = "widget";
                protected int size;
                int hidden;
                private long secret;

                public Widget(T first) { }
                protected Widget() { }
                Widget(int packagePrivate) { }

                public <K, V extends List<? super K>> Map<K, V> index(List<? extends T> items, String... keys) {
                    return Map.of();
                }
                public Optional<T> first() throws IOException { return Optional.empty(); }
                @Deprecated(since = "0.1.0", forRemoval = true)
                public void old() { }
                protected void hook() { }
                void internalToo() { }
                @Override
                public void close() { }

                public interface Listener {
                    void changed(Widget<?> widget);
                    default void closed() { }
                    static Listener none() { return w -> { }; }
                }
                protected static class ForSubclasses { public void help() { } }
                static class PackagePrivate { public void notApi() { } }
                public record Point(int x, int y) { }
                public enum Color { RED, GREEN }
            }
            """;

    private static final Map<String, String> SOURCES = Map.of(
            "acme/Widget.java", WIDGET,
            "acme/Sealed.java", """
                    package acme;
                    public sealed interface Sealed permits Sealed.A, Sealed.B {
                        record A() implements Sealed { }
                        final class B implements Sealed {
                            protected void notVisible() { }
                        }
                    }
                    """,
            "acme/internal/Hidden.java", """
                    package acme.internal;
                    public class Hidden { public void notApi() { } }
                    """);

    @Test
    void theDumpHasEveryPublicAndSubclassVisibleMemberInAStableOrderWithGenericSignatures() throws IOException {
        String api = ApiDump.dump(compile("widget", SOURCES));

        assertThat(api).contains("""
                public class acme.Widget<T extends java.lang.Comparable<T>> implements java.lang.AutoCloseable
                  public static final java.lang.String NAME
                  protected int size
                  protected Widget()
                  public Widget(T)
                  public void close()
                  public java.util.Optional<T> first() throws java.io.IOException
                  protected void hook()
                  public <K, V extends java.util.List<? super K>> java.util.Map<K, V> index(java.util.List<? extends T>, java.lang.String...)
                  @java.lang.Deprecated(since="0.1.0", forRemoval=true) public void old()
                """);
        assertThat(api).contains("""
                public interface acme.Widget$Listener
                  public void changed(acme.Widget<?>)
                  public default void closed()
                  public static acme.Widget$Listener none()
                """);
        assertThat(api).contains("protected static class acme.Widget$ForSubclasses\n  protected ForSubclasses()\n"
                + "  public void help()\n");
        assertThat(api).contains("public record acme.Widget$Point\n  public Point(int, int)\n");
        assertThat(api).contains("public enum acme.Widget$Color\n  enum constant GREEN\n  enum constant RED\n");
        assertThat(api).contains("public sealed interface acme.Sealed permits acme.Sealed$A, acme.Sealed$B\n");
        // A final class's protected members are seen by no subclass; package-private types and members, private
        // ones and the internal package are no API.
        assertThat(api).doesNotContain("notVisible", "hidden", "secret", "internalToo", "PackagePrivate", "notApi",
                "packagePrivate", "acme.internal");
        assertThat(ApiDump.dump(compile("again", SOURCES))).as("stable").isEqualTo(api);
    }

    @Test
    void aModuleInfoDecidesThePackagesAndIsRecordedWithItsTransitiveRequires() throws IOException {
        String api = ApiDump.dump(compile("module", Map.of(
                "module-info.java", "module acme { exports acme.open; requires transitive java.net.http;"
                        + " exports acme.friends to java.base; }",
                "acme/open/Open.java", "package acme.open; public class Open { }",
                "acme/friends/Friend.java", "package acme.friends; public class Friend { }",
                "acme/closed/Closed.java", "package acme.closed; public class Closed { }")));

        assertThat(api).startsWith("module acme\n  exports acme.open\n  requires transitive java.net.http\n\n")
                .contains("public class acme.open.Open\n").doesNotContain("Friend", "Closed");
    }

    @Test
    void theCheckFailsOnAChangedSignatureWithTheDiffAndTheCommandThatRecordsIt() throws IOException {
        Path api = dir.resolve("api");
        assertThat(run("--update", "--api-dir", api.toString(), "widget=" + compile("v1", SOURCES))).isZero();
        assertThat(api.resolve("widget.api")).exists();
        assertThat(run("--api-dir", api.toString(), "widget=" + compile("v1-again", SOURCES))).isZero();

        Map<String, String> changed = new java.util.HashMap<>(SOURCES);
        changed.put("acme/Widget.java", WIDGET.replace("public Optional<T> first()", "public Optional<T> first(int n)"));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = ApiCheck.run(new String[] {"--api-dir", api.toString(), "widget=" + compile("v2", changed)},
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(status).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("the public API of widget differs")
                .contains("      public class acme.Widget<T extends java.lang.Comparable<T>> implements java.lang.AutoCloseable\n"
                        + "    -   public java.util.Optional<T> first() throws java.io.IOException\n"
                        + "    +   public java.util.Optional<T> first(int) throws java.io.IOException\n")
                .contains(ApiCheck.UPDATE_COMMAND);
    }

    private static int run(String... args) {
        return ApiCheck.run(args, new PrintStream(new ByteArrayOutputStream()), new PrintStream(new ByteArrayOutputStream()));
    }
}
