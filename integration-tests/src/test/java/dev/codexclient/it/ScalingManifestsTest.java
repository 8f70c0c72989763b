package dev.codexclient.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Kubernetes manifests of docs/SCALING.md parse as YAML, and their parts agree with each other and with what the
 * pool expects: the StatefulSet's Service is the headless Service, labels select the pods, the Service's named port
 * is a container port (its name is the SRV record's), the probes ask {@code /readyz} and {@code /healthz} on it,
 * {@code --listen} binds it, the mounted secret is the file {@code --ws-shared-secret-file} reads, and
 * {@code CODEX_HOME} is on the claimed volume.
 */
class ScalingManifestsTest {
    private static final Pattern YAML_BLOCK = Pattern.compile("```yaml\\n(.*?)```", Pattern.DOTALL);

    private static List<JsonNode> manifests() throws IOException {
        Path page = Path.of("").toAbsolutePath().getParent().resolve("docs/SCALING.md");
        String text = Files.readString(page, StandardCharsets.UTF_8);
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        List<JsonNode> out = new ArrayList<>();
        Matcher m = YAML_BLOCK.matcher(text);
        while (m.find()) {
            try (YAMLParser parser = new YAMLFactory().createParser(m.group(1))) {
                for (JsonNode n : yaml.readValues(parser, JsonNode.class).readAll()) {
                    if (n != null && !n.isNull() && !n.isMissingNode()) {
                        out.add(n);
                    }
                }
            }
        }
        return out;
    }

    private static JsonNode kind(List<JsonNode> all, String kind) {
        return all.stream().filter(n -> n.path("kind").asText().equals(kind)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " in docs/SCALING.md"));
    }

    private static JsonNode named(JsonNode array, String name) {
        for (JsonNode n : array) {
            if (n.path("name").asText().equals(name)) {
                return n;
            }
        }
        return MissingNode.getInstance();
    }

    @Test
    void theManifestsParseAndAgree() throws IOException {
        List<JsonNode> all = manifests();
        assertThat(all).hasSize(2);
        for (JsonNode n : all) {
            assertThat(n.path("apiVersion").asText()).as("apiVersion").isIn("apps/v1", "v1");
            assertThat(n.path("metadata").path("name").asText()).as("metadata.name").isNotBlank();
        }
        JsonNode set = kind(all, "StatefulSet");
        JsonNode service = kind(all, "Service");
        JsonNode spec = set.path("spec");

        // The headless Service of the StatefulSet, selecting its pods.
        assertThat(set.path("apiVersion").asText()).isEqualTo("apps/v1");
        assertThat(service.path("apiVersion").asText()).isEqualTo("v1");
        assertThat(spec.path("serviceName").asText()).isEqualTo(service.path("metadata").path("name").asText());
        assertThat(service.path("spec").path("clusterIP").asText()).isEqualTo("None");
        JsonNode podLabels = spec.path("template").path("metadata").path("labels");
        assertThat(spec.path("selector").path("matchLabels")).isEqualTo(podLabels);
        assertThat(service.path("spec").path("selector")).isEqualTo(podLabels);
        assertThat(spec.path("replicas").isInt()).isTrue();

        // The Service's port is named (the SRV record _NAME._tcp.SERVICE) and is the container's.
        JsonNode container = named(spec.path("template").path("spec").path("containers"), "app-server");
        assertThat(container.isMissingNode()).as("the app-server container").isFalse();
        JsonNode servicePort = service.path("spec").path("ports").get(0);
        String portName = servicePort.path("name").asText();
        assertThat(portName).isNotBlank();
        JsonNode containerPort = named(container.path("ports"), servicePort.path("targetPort").asText());
        assertThat(containerPort.path("containerPort").asInt()).isEqualTo(servicePort.path("port").asInt());
        assertThat(textOf(container.path("args"))).contains("--listen",
                "ws://0.0.0.0:" + containerPort.path("containerPort").asInt());
        assertThat(container.path("readinessProbe").path("httpGet").path("path").asText()).isEqualTo("/readyz");
        assertThat(container.path("readinessProbe").path("httpGet").path("port").asText()).isEqualTo(portName);
        assertThat(container.path("livenessProbe").path("httpGet").path("path").asText()).isEqualTo("/healthz");

        // The secret's file is where --ws-shared-secret-file reads it.
        List<String> args = textOf(container.path("args"));
        String secretFile = args.get(args.indexOf("--ws-shared-secret-file") + 1);
        JsonNode volumes = spec.path("template").path("spec").path("volumes");
        JsonNode mounts = container.path("volumeMounts");
        boolean mounted = false;
        for (JsonNode mount : mounts) {
            JsonNode volume = named(volumes, mount.path("name").asText());
            if (!volume.path("secret").isMissingNode() && secretFile.startsWith(mount.path("mountPath").asText()
                    + "/")) {
                mounted = true;
                assertThat(mount.path("readOnly").asBoolean()).isTrue();
            }
        }
        assertThat(mounted).as("a Secret is mounted where " + secretFile + " is read").isTrue();

        // CODEX_HOME is on the volume each pod claims.
        String codexHome = named(container.path("env"), "CODEX_HOME").path("value").asText();
        String claim = spec.path("volumeClaimTemplates").get(0).path("metadata").path("name").asText();
        assertThat(Map.of(named(mounts, claim).path("mountPath").asText(), claim)).containsKey(codexHome);
    }

    private static List<String> textOf(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }
}
