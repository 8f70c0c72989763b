package dev.codexclient.it.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Shared secrets and bearer tokens never leave the client in readable form: with every logger at TRACE, neither
 * the secret nor any token minted from it (nor an opaque token, nor a wrong secret) appears in a log line, an
 * exception message or stack trace, or a {@code toString()}, although connections succeed and fail with them against
 * the real codex.
 *
 * <p>The scenario runs in a fresh JVM because SLF4J's simple logger fixes its levels when the first logger is
 * created, which in this JVM happened long ago at WARN.
 */
@Tag("real-codex")
@Timeout(120)
class TokenSecrecyTest {

    @Test
    void secretsAndTokensAppearNowhere(@TempDir Path dir) throws Exception {
        byte[] random = new byte[48];
        new SecureRandom().nextBytes(random);
        String secret = Base64.getEncoder().encodeToString(random);
        Path secretFile = Files.writeString(dir.resolve("secret"), secret);
        Path minted = dir.resolve("minted.txt");
        Path log = dir.resolve("trace.log");
        Path stdout = dir.resolve("stdout.txt");
        Path stderr = dir.resolve("stderr.txt");
        try (ListeningCodex codex = ListeningCodex.webSocket("--ws-auth", "signed-bearer-token",
                "--ws-shared-secret-file", secretFile.toString(), "--ws-issuer", "secrecy", "--ws-audience", "it")) {
            List<String> command = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"),
                    "-Dorg.slf4j.simpleLogger.defaultLogLevel=trace",
                    "-Dorg.slf4j.simpleLogger.logFile=" + log,
                    TokenSecrecyScenario.class.getName(),
                    codex.uri().toString(), secretFile.toString(), "secrecy", "it", minted.toString()));
            Process p = new ProcessBuilder(command).redirectOutput(stdout.toFile()).redirectError(stderr.toFile())
                    .start();
            boolean exited = p.waitFor(90, TimeUnit.SECONDS);
            if (!exited) {
                p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
            String out = read(stdout);
            String err = read(stderr);
            String logged = read(log);
            assertThat(exited).as("scenario finished; stdout:%n%s%nstderr:%n%s", out, err).isTrue();
            assertThat(p.exitValue()).as("scenario exit; stdout:%n%s%nstderr:%n%s", out, err).isZero();
            assertThat(out).contains("SCENARIO DONE", "check connected=true", "check wrong-secret-refused=true",
                    "check expired-refused=true", "check opaque-refused=true").doesNotContain("=false");
            assertThat(out).contains("invalid websocket jwt", "expired websocket jwt");
            assertThat(logged).as("logging really was at TRACE").contains("TRACE dev.codexclient.wire");

            List<String> tokens = Files.readAllLines(minted);
            assertThat(tokens).as("tokens minted: good, wrong secret, expired").hasSize(3);
            List<String> secrets = new ArrayList<>(tokens);
            secrets.add(secret);
            secrets.add(TokenSecrecyScenario.WRONG_SECRET);
            secrets.add(TokenSecrecyScenario.OPAQUE_TOKEN);
            for (String s : secrets) {
                // Each token's signature alone is a secret too.
                String tail = s.contains(".") ? s.substring(s.lastIndexOf('.') + 1) : s;
                for (String needle : List.of(s, tail)) {
                    assertThat(logged).as("log file").doesNotContain(needle);
                    assertThat(out).as("messages, stack traces and toString()s").doesNotContain(needle);
                    assertThat(err).as("stderr of the scenario").doesNotContain(needle);
                }
            }
        }
    }

    private static String read(Path file) throws java.io.IOException {
        return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    }
}
