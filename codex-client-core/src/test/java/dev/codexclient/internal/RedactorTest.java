package dev.codexclient.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RedactorTest {

    private final Redactor redactor = new Redactor();

    private String r(String s) {
        return redactor.redact(s);
    }

    @Test
    void masksOpenAiKeys() {
        assertThat(r("key sk-abcdefghijklmnopqrstuvwxyz0123 used"))
                .isEqualTo("key [REDACTED] used");
        assertThat(r("sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz_0123-456789"))
                .isEqualTo("[REDACTED]");
        assertThat(r("(sk-svcacct-0123456789abcdefABCDEF)")).isEqualTo("([REDACTED])");
    }

    @Test
    void leavesShortSkWordsAlone() {
        assertThat(r("installed sk-learn and task-sk-1")).isEqualTo("installed sk-learn and task-sk-1");
    }

    @Test
    void masksBearerTokens() {
        assertThat(r("sending Bearer abc.def-ghi_123/+= now")).isEqualTo("sending Bearer [REDACTED] now");
        assertThat(r("bearer xyz")).isEqualTo("bearer [REDACTED]");
        // The phrase names the kind of credential; it is not one (codex: "invalid websocket bearer token").
        assertThat(r("invalid websocket bearer token")).isEqualTo("invalid websocket bearer token");
        assertThat(r("Bearer tokenXYZ123")).isEqualTo("Bearer [REDACTED]");
    }

    @Test
    void masksJwts() {
        String jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        assertThat(r("id " + jwt + " end")).isEqualTo("id [REDACTED] end");
        // Unsigned tokens have an empty third part.
        assertThat(r("eyJhbGciOiJub25lIn0.eyJzdWIiOiIxMjM0In0.")).isEqualTo("[REDACTED]");
    }

    @Test
    void masksSecretValuesInJson() {
        assertThat(r("{\"api_key\":\"abc\",\"model\":\"o3\"}")).isEqualTo("{\"api_key\":\"[REDACTED]\",\"model\":\"o3\"}");
        assertThat(r("{\"apiKey\" : \"abc\"}")).isEqualTo("{\"apiKey\" : \"[REDACTED]\"}");
        assertThat(r("{\"OPENAI_API_KEY\":\"a\\\"b\"}")).isEqualTo("{\"OPENAI_API_KEY\":\"[REDACTED]\"}");
        assertThat(r("{\"access_token\":\"t1\",\"accessToken\":\"t2\",\"id_token\":\"t3\",\"idToken\":\"t4\","
                + "\"refresh_token\":\"t5\",\"token\":\"t6\",\"authorization\":\"Basic t7\",\"password\":\"t8\"}"))
                .doesNotContain("t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8")
                .contains("\"refresh_token\":\"[REDACTED]\"", "\"password\":\"[REDACTED]\"");
    }

    @Test
    void keepsNonSecretKeysThatMerelyMentionTokens() {
        String usage = "{\"max_tokens\":\"5\",\"tokenUsage\":{\"total\":1},\"input_tokens\":\"3\"}";
        assertThat(r(usage)).isEqualTo(usage);
        assertThat(r("{\"token\":null}")).isEqualTo("{\"token\":null}");
    }

    @Test
    void masksEnvTomlAndHeaderAssignments() {
        assertThat(r("OPENAI_API_KEY=abc123 codex")).isEqualTo("OPENAI_API_KEY=[REDACTED] codex");
        assertThat(r("export CODEX_API_KEY='q w e'")).isEqualTo("export CODEX_API_KEY='[REDACTED]'");
        assertThat(r("api_key = \"toml-value\"")).isEqualTo("api_key = \"[REDACTED]\"");
        assertThat(r("Authorization: Bearer abc.def")).isEqualTo("Authorization: [REDACTED]");
        assertThat(r("password: hunter2, user: bob")).isEqualTo("password: [REDACTED], user: bob");
        assertThat(r("url?access_token=abc&x=1")).isEqualTo("url?access_token=[REDACTED]&x=1");
    }

    @Test
    void masksRegisteredSecretsOfAnyShape() {
        redactor.register("hunter2-my-own-secret");
        assertThat(r("login with hunter2-my-own-secret twice: hunter2-my-own-secret"))
                .isEqualTo("login with [REDACTED] twice: [REDACTED]");
        assertThat(redactor.isRegistered(" hunter2-my-own-secret ")).isTrue();
    }

    @Test
    void ignoresRegistrationsTooShortToBeSafe() {
        redactor.register("abc");
        redactor.register("   ");
        redactor.register(null);
        assertThat(r("abc def")).isEqualTo("abc def");
    }

    @Test
    void handlesNullEmptyAndPlainText() {
        assertThat(r(null)).isEmpty();
        assertThat(r("")).isEmpty();
        String plain = "2026-01-01 INFO codex_app_server: listening on stdio";
        assertThat(r(plain)).isEqualTo(plain);
    }

    @Test
    void aRealisticStderrLineLeaksNothing() {
        redactor.register("sk-registered-0123456789");
        String line = "ERROR http: request failed headers={\"authorization\": \"Bearer sk-proj-abcdefghijklmnop0123\"} "
                + "env OPENAI_API_KEY=sk-registered-0123456789 token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig";
        String out = r(line);
        assertThat(out).doesNotContain("sk-proj", "abcdefghijklmnop", "sk-registered", "eyJ", "sig")
                .contains("ERROR http: request failed");
    }

    @Test
    void secretsOfOneRedactorAreUnknownToAnother() {
        redactor.register("client-one-secret-value");
        assertThat(new Redactor().redact("client-one-secret-value")).isEqualTo("client-one-secret-value");
        assertThat(r("client-one-secret-value")).isEqualTo(Redactor.MASK);
    }

    @Test
    void refreshedTokensAreKeptOnlyUpToABound() {
        redactor.register("the-api-key-itself");
        for (int i = 0; i < 1_000; i++) {
            redactor.registerRefreshed("refreshed-token-" + i);
        }
        assertThat(redactor.registeredCount()).isEqualTo(Redactor.REFRESHED_KEPT + 1);
        assertThat(r("refreshed-token-999")).isEqualTo(Redactor.MASK);
        assertThat(r("refreshed-token-" + (1_000 - Redactor.REFRESHED_KEPT))).isEqualTo(Redactor.MASK);
        assertThat(r("refreshed-token-0")).isEqualTo("refreshed-token-0");
        assertThat(r("the-api-key-itself")).isEqualTo(Redactor.MASK);
    }
}
