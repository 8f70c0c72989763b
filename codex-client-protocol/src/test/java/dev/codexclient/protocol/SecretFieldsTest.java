package dev.codexclient.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.reflect.Constructor;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every {@code secretFields} entry of the overrides keeps its value out of {@code toString()} while the wire still
 * carries the real value. The entries are read from the overrides file, so a new entry is covered without touching
 * this test.
 */
class SecretFieldsTest {
    private static final ObjectMapper M = ProtocolJson.mapper();
    private static final String MARKER = "sk-test-SECRET-4f1c9a";

    static List<String> secretFields() throws Exception {
        JsonNode ov = M.readTree(SchemaSamples.schemaDir().resolve("codegen-overrides.json").toFile());
        List<String> out = new ArrayList<>();
        ov.path("secretFields").forEach(n -> out.add(n.asText()));
        return out;
    }

    @Test
    void theOverridesListSecrets() throws Exception {
        assertThat(secretFields()).contains("LoginAccountParams.ApiKey.apiKey",
                "LoginAccountParams.ChatgptAuthTokens.accessToken", "ChatgptAuthTokensRefreshResponse.accessToken",
                "AttestationGenerateResponse.token", "LoginAccountParams.AmazonBedrockAccessKeys.secretAccessKey",
                "LoginAccountParams.AmazonBedrockAccessKeys.sessionToken");
    }

    @ParameterizedTest
    @MethodSource("secretFields")
    void toStringMasksTheSecretAndTheWireKeepsIt(String entry) throws Exception {
        String[] parts = entry.split("\\.");
        String wire = parts[parts.length - 1];
        Class<?> top = Class.forName("dev.codexclient.protocol." + parts[0]);
        List<Class<?>> records = parts.length == 3
                ? List.of(Class.forName(top.getName() + "$" + parts[1]))
                : recordsOf(top);
        boolean seen = false;
        for (Class<?> type : records) {
            RecordComponent rc = byWire(type, wire);
            if (rc == null) {
                continue;
            }
            seen = true;
            Object secret = secretValue(entry, rc.getGenericType());
            Object rec = construct(type, rc, secret);

            assertThat(rec.toString()).as(entry).doesNotContain(MARKER).contains(rc.getName() + "=[REDACTED]")
                    .startsWith(type.getSimpleName() + "[");
            String json = M.writeValueAsString(rec);
            assertThat(json).as(entry).contains(MARKER);
            Object back = M.readValue(json, top);
            assertThat(back).as(entry).isInstanceOf(type);
            assertThat(rc.getAccessor().invoke(back)).as(entry).isEqualTo(secret);

            // equals/hashCode still see the real value
            Object other = construct(type, rc, secretValue(entry + "-other", rc.getGenericType()));
            assertThat(rec).isNotEqualTo(other).isEqualTo(construct(type, rc, secret));
            assertThat(rec.hashCode()).isEqualTo(construct(type, rc, secret).hashCode());

            if (!rc.getType().isPrimitive()) {
                assertThat(construct(type, rc, null).toString()).as(entry).contains(rc.getName() + "=null");
            }
        }
        assertThat(seen).as(entry + " names a component").isTrue();
    }

    @Test
    void theMaskedFormatMatchesTheRecordDefault() {
        LoginAccountParams.ChatgptAuthTokens t = new LoginAccountParams.ChatgptAuthTokens(MARKER, "acct", null);
        assertThat(t.toString())
                .isEqualTo("ChatgptAuthTokens[accessToken=[REDACTED], chatgptAccountId=acct, chatgptPlanType=null, unknownMembers={}]");
        assertThat(new LoginAccountParams.ApiKey(null).toString()).isEqualTo("ApiKey[apiKey=null, unknownMembers={}]");
        // a record holding a secret-bearing record prints it masked as well
        ClientRequest req = new ClientRequest.AccountLoginStart(RequestId.of(1), new LoginAccountParams.ApiKey(MARKER));
        assertThat(req.toString()).doesNotContain(MARKER).contains("[REDACTED]");
    }

    @Test
    void buildersDoNotPrintSecrets() {
        ChatgptAuthTokensRefreshResponse.Builder b = ChatgptAuthTokensRefreshResponse.builder().accessToken(MARKER)
                .chatgptAccountId("acct");
        assertThat(b.toString()).doesNotContain(MARKER);
        assertThat(b.build().toString()).doesNotContain(MARKER);
        assertThat(b.build().accessToken()).isEqualTo(MARKER);
    }

    private static List<Class<?>> recordsOf(Class<?> top) {
        if (top.isRecord()) {
            return List.of(top);
        }
        List<Class<?>> out = new ArrayList<>();
        for (Class<?> c : top.getPermittedSubclasses()) {
            if (c.isRecord()) {
                out.add(c);
            }
        }
        return out;
    }

    private static RecordComponent byWire(Class<?> type, String wire) throws NoSuchFieldException {
        for (RecordComponent rc : type.getRecordComponents()) {
            // @JsonProperty does not target record components; javac propagates it to the private field
            JsonProperty p = type.getDeclaredField(rc.getName()).getAnnotation(JsonProperty.class);
            if (p != null && p.value().equals(wire)) {
                return rc;
            }
        }
        return null;
    }

    /** A value of the component's type that carries the marker where a reader would see it. */
    private static Object secretValue(String entry, Type t) {
        String marker = MARKER + "-" + entry.hashCode();
        if (t == String.class) {
            return marker;
        }
        if (t instanceof ParameterizedType p) {
            Type raw = p.getRawType();
            Type[] args = p.getActualTypeArguments();
            if (raw == List.class && args[0] == String.class) {
                return List.of("visible-looking", marker);
            }
            if (raw == Map.class && args[1] == String.class) {
                Map<String, String> m = new LinkedHashMap<>();
                m.put("AUTHORIZATION", marker);
                return m;
            }
            if (raw == Tristate.class && args[0] == String.class) {
                return Tristate.of(marker);
            }
        }
        return fail("extend SecretFieldsTest for secret component type " + t.getTypeName() + " (" + entry + ")");
    }

    private static Object construct(Class<?> type, RecordComponent secret, Object value) throws Exception {
        RecordComponent[] rcs = type.getRecordComponents();
        Class<?>[] types = Stream.of(rcs).map(RecordComponent::getType).toArray(Class<?>[]::new);
        Object[] args = new Object[rcs.length];
        for (int i = 0; i < rcs.length; i++) {
            if (rcs[i].getName().equals(secret.getName())) {
                args[i] = value;
            } else if (types[i] == boolean.class) {
                args[i] = false;
            } else if (types[i] == int.class) {
                args[i] = 0;
            } else if (types[i] == long.class) {
                args[i] = 0L;
            } else if (types[i] == double.class) {
                args[i] = 0.0;
            }
        }
        Constructor<?> c = type.getDeclaredConstructor(types);
        return c.newInstance(args);
    }
}
