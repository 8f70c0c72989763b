package dev.codexclient.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codexclient.agent.ToolInvocation.Kind;
import dev.codexclient.agent.ToolInvocation.Outcome;
import dev.codexclient.protocol.ThreadItem;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Completed thread items as tool invocations, from the wire shapes of codex 0.169.0. */
class InvocationsTest {
    private final ObjectMapper json = new ObjectMapper();

    private ToolInvocation of(String item) throws Exception {
        return Invocations.of(json.readValue(item, ThreadItem.class)).orElseThrow();
    }

    @Test
    void mcpToolCalls() throws Exception {
        ToolInvocation ok = of("{\"type\":\"mcpToolCall\",\"id\":\"i1\",\"server\":\"docs\",\"tool\":\"search\","
                + "\"arguments\":{\"q\":\"x\"},\"status\":\"completed\",\"durationMs\":42}");
        assertThat(ok.kind()).isEqualTo(Kind.MCP_TOOL);
        assertThat(ok.name()).isEqualTo("docs/search");
        assertThat(ok.arguments().path("q").asText()).isEqualTo("x");
        assertThat(ok.outcome()).isEqualTo(Outcome.COMPLETED);
        assertThat(ok.duration()).isEqualTo(Duration.ofMillis(42));
        ToolInvocation failed = of("{\"type\":\"mcpToolCall\",\"id\":\"i2\",\"server\":\"docs\",\"tool\":\"search\","
                + "\"arguments\":{},\"status\":\"failed\",\"error\":{\"message\":\"no index\"}}");
        assertThat(failed.outcome()).isEqualTo(Outcome.FAILED);
        assertThat(failed.detail()).contains("no index");
    }

    @Test
    void commandsByStatusAndExitCode() throws Exception {
        assertThat(of("{\"type\":\"commandExecution\",\"id\":\"c\",\"command\":\"rm -rf x\",\"cwd\":\"/w\","
                + "\"status\":\"declined\",\"commandActions\":[]}").outcome()).isEqualTo(Outcome.DECLINED);
        ToolInvocation exit1 = of("{\"type\":\"commandExecution\",\"id\":\"c\",\"command\":\"false\",\"cwd\":\"/w\","
                + "\"status\":\"completed\",\"exitCode\":1,\"commandActions\":[],\"startedAtMs\":1000,"
                + "\"completedAtMs\":1250}");
        assertThat(exit1.outcome()).isEqualTo(Outcome.FAILED);
        assertThat(exit1.detail()).contains("exit code 1");
        assertThat(exit1.duration()).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void dynamicToolsAndFileChanges() throws Exception {
        assertThat(of("{\"type\":\"dynamicToolCall\",\"id\":\"d\",\"tool\":\"lookup\",\"arguments\":{},"
                + "\"status\":\"completed\",\"success\":false}").outcome()).isEqualTo(Outcome.FAILED);
        ToolInvocation patch = of("{\"type\":\"fileChange\",\"id\":\"f\",\"status\":\"declined\",\"changes\":"
                + "[{\"path\":\"/w/a.txt\",\"kind\":{\"type\":\"add\"},\"diff\":\"+x\"}]}");
        assertThat(patch.kind()).isEqualTo(Kind.FILE_CHANGE);
        assertThat(patch.outcome()).isEqualTo(Outcome.DECLINED);
        assertThat(patch.name()).isEqualTo("/w/a.txt");
        assertThat(patch.arguments().toString()).contains("\"kind\":\"add\"").doesNotContain("+x");
    }

    @Test
    void otherItemsAreNoTools() throws Exception {
        assertThat(Invocations.of(json.readValue("{\"type\":\"agentMessage\",\"id\":\"m\",\"text\":\"hi\"}",
                ThreadItem.class))).isEmpty();
    }
}
