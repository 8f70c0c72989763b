package dev.codexclient.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What a client's start loads: of the protocol, the types of the methods it calls, not the whole schema; of the
 * rest, nothing it does not use yet (SLF4J, the shared timer and callback threads). Fresh JVMs with class-load
 * logging run {@link FirstThread}, which starts one thread on the in-memory fake, and {@link EveryCoreClass}.
 */
class ClassLoadingTest {
    private static final String DONE = "MAIN DONE";

    @Test
    void aCallLoadsItsOwnMethodsTypesAndNotEveryMethods() throws Exception {
        List<String> loaded = loadedClasses(FirstThread.class);

        assertThat(loaded).as("the first call's own types").contains(
                "dev.codexclient.protocol.ThreadStartParams", "dev.codexclient.protocol.ThreadStartResponse");
        // Each method's descriptor names its params and result classes; a table of all of them would load every
        // method's types with the first call.
        assertThat(loaded).as("another method's types and the table of every method").doesNotContain(
                "dev.codexclient.protocol.ThreadArchiveParams", "dev.codexclient.protocol.FeedbackUploadResponse",
                "dev.codexclient.protocol.ClientRequestMethods");
        // Jackson reads a type's annotations when it first binds it; a variant table of class literals there would
        // load every notification's and server request's variant before the first message.
        assertThat(loaded).as("variants of messages that never arrived").doesNotContain(
                "dev.codexclient.protocol.ServerNotification$ThreadArchived",
                "dev.codexclient.protocol.ServerNotification$WindowsSandboxSetupCompleted",
                "dev.codexclient.protocol.ServerRequest$ItemToolCall");
    }

    @Test
    void aClientsStartLoadsNoServerRequestsTypes() throws Exception {
        List<String> loaded = loadedClasses(FirstThread.class);

        // ServerRequestMethods names the params and result class of every server request; the router reads it
        // with the first server request, and FirstThread's turnless thread gets none.
        assertThat(loaded).as("server requests' types, before any server request").doesNotContain(
                "dev.codexclient.protocol.ServerRequestMethods",
                "dev.codexclient.protocol.DynamicToolCallParams",
                "dev.codexclient.protocol.CommandExecutionRequestApprovalParams");
    }

    @Test
    void loadingTheSdkNeitherLooksUpSlf4jNorStartsAThread() throws Exception {
        String out = run(EveryCoreClass.class);
        List<String> loaded = loadedClasses(out);

        assertThat(loaded).as("the core's top-level classes, initialized").contains(
                "dev.codexclient.internal.session.ClientRuntime", "dev.codexclient.internal.time.SystemScheduler",
                "dev.codexclient.internal.rpc.CallbackPool");
        // SLF4J looks up its provider (a service-loader scan of the class path) on its first getLogger: a logger in
        // a static field would do that with the first class of the SDK loaded, before there is anything to log.
        assertThat(loaded).as("SLF4J, before anything is logged").doesNotContain("org.slf4j.LoggerFactory");
        // The shared timer is built with the first task scheduled.
        assertThat(loaded).as("an executor, before any task").doesNotContain(
                "java.util.concurrent.ScheduledThreadPoolExecutor", "java.util.concurrent.ThreadPoolExecutor");
        assertThat(out.lines().filter(l -> l.startsWith("THREAD "))).as("the JVM's threads").isNotEmpty()
                .noneMatch(l -> l.startsWith("THREAD codex-"));
    }

    private static List<String> loadedClasses(Class<?> main) throws IOException, InterruptedException {
        return loadedClasses(run(main));
    }

    /** The output of {@code main} run in a fresh JVM with class-load logging. */
    private static String run(Class<?> main) throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "-Xlog:class+load=info:stdout",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", System.getProperty("java.class.path"),
                main.getName()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains(DONE);
        return out;
    }

    private static List<String> loadedClasses(String out) {
        // Lines look like "[0.123s][info][class,load] dev.codexclient.protocol.X source: ..."
        return out.lines().filter(l -> l.contains("[class,load]"))
                .map(l -> l.substring(l.indexOf("[class,load]") + "[class,load]".length()).trim().split(" ")[0])
                .toList();
    }

    /** Starts one thread on an in-memory fake, in a JVM of its own. */
    static final class FirstThread {
        public static void main(String[] args) {
            try (FakeCodexAppServer fake = new FakeCodexAppServer();
                 CodexClient client = CodexClient.builder().transport(fake.connectInMemory()).build()) {
                client.startThread();
                System.out.println(DONE);
            }
        }
    }

    /**
     * Initializes every top-level class of the core, in a JVM of its own, and builds a client's builder: what an application
     * does before its first client connects. Then lists the SDK's threads alive.
     */
    static final class EveryCoreClass {
        public static void main(String[] args) throws Exception {
            Path core = Path.of(CodexClient.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            List<String> names;
            if (Files.isDirectory(core)) {
                try (Stream<Path> files = Files.walk(core)) {
                    names = files.map(f -> core.relativize(f).toString().replace(File.separatorChar, '/')).toList();
                }
            } else {
                try (JarFile jar = new JarFile(core.toFile())) {
                    names = jar.stream().map(JarEntry::getName).toList();
                }
            }
            int initialized = 0;
            for (String name : names) {
                // Top-level classes only: a nested class is initialized by its first use, which may well be to log.
                if (name.endsWith(".class") && !name.contains("$") && !name.endsWith("module-info.class")) {
                    Class.forName(name.substring(0, name.length() - ".class".length()).replace('/', '.'), true,
                            EveryCoreClass.class.getClassLoader());
                    initialized++;
                }
            }
            if (initialized < 100) {
                throw new IllegalStateException("only " + initialized + " classes found in " + core);
            }
            CodexClient.builder().requestTimeout(Duration.ofSeconds(5));
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                System.out.println("THREAD " + t.getName());
            }
            System.out.println(DONE);
        }
    }
}
