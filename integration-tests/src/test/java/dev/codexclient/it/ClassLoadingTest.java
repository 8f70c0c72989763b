package dev.codexclient.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.CodexClient;
import dev.codexclient.testkit.FakeCodexAppServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What a client loads of the protocol: the types of the methods it calls, not the whole schema. A fresh JVM with
 * class-load logging runs {@link FirstThread}, which starts one thread on the in-memory fake.
 */
class ClassLoadingTest {

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

    private static List<String> loadedClasses(Class<?> main) throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "-Xlog:class+load=info:stdout",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", System.getProperty("java.class.path"),
                main.getName()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("FIRST THREAD STARTED");
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
                System.out.println("FIRST THREAD STARTED");
            }
        }
    }
}
