package dev.codexclient.it.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Secrets never leave the client in readable form: with every logger at TRACE, the API key and a refreshed ChatGPT
 * token appear in no log line, exception message, stack trace, {@code toString()} or stderr tail, although the
 * server echoes them in errors, a failed turn and its dying words on stderr.
 *
 * <p>The scenario runs in a fresh JVM because SLF4J's simple logger fixes its levels when the first logger is
 * created, which in this JVM happened long ago at WARN.
 */
class SecretsTest {

    @Test
    void secretsAppearNowhere(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("trace.log");
        Path stdout = dir.resolve("stdout.txt");
        Path stderr = dir.resolve("stderr.txt");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=trace");
        command.add("-Dorg.slf4j.simpleLogger.logFile=" + log);
        command.add(SecretsScenario.class.getName());
        Process p = new ProcessBuilder(command).redirectOutput(stdout.toFile()).redirectError(stderr.toFile())
                .start();
        boolean exited = p.waitFor(60, TimeUnit.SECONDS);
        if (!exited) {
            p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
        String out = read(stdout);
        String err = read(stderr);
        String logged = read(log);
        assertThat(exited).as("scenario finished; stdout:\n%s\nstderr:\n%s", out, err).isTrue();
        assertThat(p.exitValue()).as("scenario exit; stdout:\n%s\nstderr:\n%s", out, err).isZero();
        assertThat(out).contains("SCENARIO DONE");

        // The scenario really exercised the secrets: they went over the wire where they belong ...
        assertThat(out).contains("check login-carried-key=true", "check refresh-carried-token=true",
                "check tail-captured=true", "check login-refused-typed=true").doesNotContain("=false");
        // ... the failures really happened and were reported ...
        assertThat(out).contains("seen turn-exception", "seen rpc-exception", "seen transport-exception",
                "seen login-exception", "seen stderr-tail", "seen params-toString ApiKey[apiKey=[REDACTED], unknownMembers={}]",
                "seen refresh-toString ChatgptAuthTokensRefreshResponse[accessToken=[REDACTED], "
                        + "chatgptAccountId=acct-1");
        // ... logging really was at TRACE, wire traffic included, and masking visibly happened.
        assertThat(logged).contains("TRACE dev.codexclient.wire", "account/login/start",
                "account/chatgptAuthTokens/refresh", "[REDACTED]");

        for (String secret : List.of(SecretsScenario.API_KEY, SecretsScenario.TOKEN)) {
            assertThat(logged).as("log file").doesNotContain(secret);
            assertThat(out).as("exception messages, toString()s and stderr tails").doesNotContain(secret);
            assertThat(err).as("stderr of the scenario").doesNotContain(secret);
        }
    }

    private static String read(Path file) throws IOException {
        return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    }
}
