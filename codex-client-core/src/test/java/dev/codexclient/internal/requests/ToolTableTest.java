package dev.codexclient.internal.requests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.codexclient.DynamicTool;
import dev.codexclient.ToolResult;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ToolTableTest {
    private static DynamicTool tool(String name) {
        return DynamicTool.ofJson(name, name, JsonNodeFactory.instance.objectNode().put("type", "object"),
                a -> ToolResult.text(name));
    }

    @Test
    void aThreadsOwnToolsAnswerOnlyItsCallsBesideTheClientsOnes() {
        DynamicTool now = tool("now");
        ToolTable table = new ToolTable(List.of(now));
        DynamicTool lookup = tool("lookup");
        table.declare("t1", table.checked(List.of(lookup)));

        assertThat(table.find("t1", "lookup")).containsSame(lookup);
        assertThat(table.find("t2", "lookup")).isEmpty();
        assertThat(table.find(null, "lookup")).isEmpty();
        assertThat(table.find("t2", "now")).containsSame(now);
        assertThat(table.find("t1", "now")).containsSame(now);
        assertThat(table.clientTools()).containsExactly(now);

        table.forget("t1");
        assertThat(table.find("t1", "lookup")).isEmpty();
        assertThat(table.threads()).isZero();
    }

    @Test
    void aLaterDeclarationReplacesAndAnEmptyOneForgets() {
        ToolTable table = new ToolTable(List.of());
        DynamicTool first = tool("lookup");
        DynamicTool second = tool("lookup");
        table.declare("t", table.checked(List.of(first)));
        table.declare("t", table.checked(List.of(second)));
        assertThat(table.find("t", "lookup")).containsSame(second);
        table.declare("t", Map.of());
        assertThat(table.threads()).isZero();
    }

    @Test
    void namesMustBeUniqueAndNotTheClients() {
        ToolTable table = new ToolTable(List.of(tool("now")));
        assertThatThrownBy(() -> table.checked(List.of(tool("now"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("every thread");
        assertThatThrownBy(() -> table.checked(List.of(tool("a"), tool("a"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("two tools named a");
        assertThat(table.checked(List.of(tool("a"), tool("b")))).containsOnlyKeys("a", "b");
    }
}
