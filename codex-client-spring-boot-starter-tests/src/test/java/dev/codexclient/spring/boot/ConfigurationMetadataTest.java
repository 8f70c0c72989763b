package dev.codexclient.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.Enumeration;
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
                "codex.unix-socket.connect-timeout", "codex.health.timeout", "codex.health.probe", "codex.lazy",
                "codex.shutdown-grace-period", "codex.restart.enabled", "codex.restart.max-attempts",
                "codex.restart.initial-backoff", "codex.restart.max-backoff", "codex.restart.budget",
                "codex.restart.budget-window", "codex.publisher.buffer-size", "codex.publisher.overflow",
                "codex.publisher.delta-interval",
                "management.health.codex.enabled");
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
        assertThat(properties.get("codex.shutdown-grace-period").path("defaultValue").asText()).isEqualTo("10s");
        assertThat(properties.get("codex.publisher.overflow").path("defaultValue").asText())
                .isEqualTo("coalesce-deltas");
        assertThat(properties.get("codex.publisher.delta-interval").path("defaultValue").asText()).isEqualTo("50ms");
        assertThat(properties.get("codex.restart.max-attempts").path("defaultValue").asInt()).isEqualTo(5);
        assertThat(properties.get("codex.restart.initial-backoff").path("defaultValue").asText()).isEqualTo("200ms");
        assertThat(properties.get("codex.restart.max-backoff").path("defaultValue").asText()).isEqualTo("10s");
        assertThat(properties.get("codex.restart.budget").path("defaultValue").asInt()).isEqualTo(20);
        assertThat(properties.get("codex.restart.budget-window").path("defaultValue").asText()).isEqualTo("10m");
    }

    /** The starter's metadata: Spring Boot's own jars have a file of that name too. */
    private static Map<String, JsonNode> properties() throws IOException {
        Map<String, JsonNode> byName = new TreeMap<>();
        Enumeration<URL> files = ConfigurationMetadataTest.class.getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json");
        while (files.hasMoreElements()) {
            try (InputStream in = files.nextElement().openStream()) {
                JsonNode metadata = new ObjectMapper().readTree(in);
                if (metadata.path("groups").findValuesAsText("name").contains("codex")) {
                    for (JsonNode property : metadata.path("properties")) {
                        byName.put(property.path("name").asText(), property);
                    }
                }
            }
        }
        assertThat(byName).as("the starter's generated metadata").isNotEmpty();
        return byName;
    }
}
