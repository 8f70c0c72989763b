package dev.codexclient.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codexclient.transport.MessageBuffer;
import dev.codexclient.transport.MessageSink;
import dev.codexclient.transport.StdioTransport;
import dev.codexclient.transport.TransportTermination;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(30)
class IsolatedHomeTest {

    @Test
    void aChildEnvironmentGetsThePrivateHomeAndLosesCredentialsAndXdgDirectories() {
        try (IsolatedHome isolated = IsolatedHome.create()) {
            assertThat(isolated.home()).isDirectory().isNotEqualTo(Path.of(System.getProperty("user.home")));
            assertThat(isolated.codexHome()).isDirectory().isEqualTo(isolated.home().resolve(".codex"));
            Map<String, String> child = new HashMap<>(Map.of("PATH", "/usr/bin", "HOME", "/home/someone",
                    "CODEX_HOME", "/home/someone/.codex", "OPENAI_API_KEY", "sk-real", "XDG_CACHE_HOME",
                    "/home/someone/.cache", "XDG_CONFIG_HOME", "/home/someone/.config"));

            isolated.applyEnvironment(child);

            assertThat(child).containsOnly(Map.entry("PATH", "/usr/bin"),
                    Map.entry("HOME", isolated.home().toString()),
                    Map.entry("CODEX_HOME", isolated.codexHome().toString()),
                    Map.entry("TMPDIR", isolated.tmp().toString()));
            assertThat(isolated.tmp()).isDirectory().hasParent(isolated.home());
        }
    }

    @Test
    void aStdioTransportRunsItsChildInThePrivateHome() throws Exception {
        try (IsolatedHome isolated = IsolatedHome.create()) {
            StdioTransport.Builder builder = StdioTransport.builder().executable("/bin/sh")
                    .args("-c", "printf '{\"home\":\"%s\",\"codexHome\":\"%s\",\"key\":\"%s\",\"cache\":\"%s\"}\\n' "
                            + "\"$HOME\" \"$CODEX_HOME\" \"${OPENAI_API_KEY-}\" \"${XDG_CACHE_HOME-}\"")
                    .environment("OPENAI_API_KEY", "sk-real").environment("XDG_CACHE_HOME", "/somewhere");
            isolated.applyEnvironment(builder);
            StdioTransport transport = builder.build();
            CompletableFuture<String> line = new CompletableFuture<>();
            try {
                transport.start(new MessageSink() {
                    @Override
                    public void onMessages(MessageBuffer messages) {
                        for (int i = 0; i < messages.count(); i++) {
                            onMessage(messages.copy(i));
                        }
                    }

                    void onMessage(byte[] message) {
                        line.complete(new String(message, StandardCharsets.UTF_8));
                    }

                    @Override
                    public void onClosed(TransportTermination termination) {
                        line.complete("closed without output");
                    }
                });
                assertThat(line.get(20, TimeUnit.SECONDS)).isEqualTo("{\"home\":\"" + isolated.home()
                        + "\",\"codexHome\":\"" + isolated.codexHome() + "\",\"key\":\"\",\"cache\":\"\"}");
            } finally {
                transport.close();
            }
        }
    }

    @Test
    void closeDeletesEverythingWrittenIntoTheHome(@TempDir Path dir) throws Exception {
        IsolatedHome isolated = IsolatedHome.in(dir.resolve("home"));
        Files.createDirectories(isolated.codexHome().resolve("tmp/arg0"));
        Files.writeString(isolated.home().resolve(".bash_history"), "ls\n");

        isolated.close();

        assertThat(dir.resolve("home")).doesNotExist();
        isolated.close();
    }
}
