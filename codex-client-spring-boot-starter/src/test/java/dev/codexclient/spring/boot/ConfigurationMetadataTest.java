package dev.codexclient.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The property metadata the build generates, which IDEs read to complete and explain {@code codex.*}: every property
 * is there, each with the description its Javadoc gives.
 */
class ConfigurationMetadataTest {

    @Test
    void everyPropertyIsDescribed() throws IOException {
        Map<String, JsonNode> properties = properties();
        assertThat(properties).containsKeys("codex.enabled", "codex.binary", "codex.command", "codex.home",
                "codex.working-directory", "codex.environment", "codex.remove-environment", "codex.api-key",
                "codex.client-info.name", "codex.client-info.title", "codex.client-info.version",
                "codex.request-timeout", "codex.initialize-timeout", "codex.close-timeout",
                "codex.interrupt-grace-period", "codex.turn-watchdog", "codex.experimental-api",
                "codex.opt-out-notifications", "codex.approval-policy", "codex.websocket.url",
                "codex.websocket.bearer-token", "codex.websocket.allow-cleartext-bearer-token",
                "codex.websocket.connect-timeout", "codex.unix-socket.path", "codex.unix-socket.bearer-token",
                "codex.unix-socket.connect-timeout", "codex.health.timeout", "management.health.codex.enabled");
        List<String> undescribed = new ArrayList<>();
        properties.forEach((name, property) -> {
            if (property.path("description").asText().isBlank()) {
                undescribed.add(name);
            }
        });
        assertThat(undescribed).as("properties without a description").isEmpty();
    }

    @Test
    void defaultsAreDeclared() throws IOException {
        Map<String, JsonNode> properties = properties();
        assertThat(properties.get("codex.enabled").path("defaultValue").asBoolean()).isTrue();
        assertThat(properties.get("codex.close-timeout").path("defaultValue").asText()).isEqualTo("5s");
        assertThat(properties.get("codex.health.timeout").path("defaultValue").asText()).isEqualTo("2s");
        assertThat(properties.get("codex.approval-policy").path("defaultValue").asText()).isEqualTo("decline");
    }

    private static Map<String, JsonNode> properties() throws IOException {
        try (InputStream in = ConfigurationMetadataTest.class.getClassLoader()
                .getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("the generated metadata").isNotNull();
            Map<String, JsonNode> byName = new TreeMap<>();
            for (JsonNode property : new ObjectMapper().readTree(in).path("properties")) {
                byName.put(property.path("name").asText(), property);
            }
            return byName;
        }
    }
}
