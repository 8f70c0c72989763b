package dev.codexclient.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * {@code AgentMessageDisplay} (an agent message's {@code moderation.display}) changed shape in codex 0.171.0: in
 * 0.169.0 a record with a required {@code action}, now a union on {@code mode}. The types follow 0.171.0; a
 * 0.169.0 server's display still decodes (as {@link AgentMessageDisplay.Unrecognized}, raw JSON kept) and both
 * shapes are written back exactly as read, inside the whole notification that carries them.
 */
class AgentMessageDisplayCompatibilityTest {
    private static final ObjectMapper JSON = ProtocolJson.mapper();

    /** What 0.169.0 wrote: the fields of its schema, explicit nulls included (serde writes an absent Option so). */
    private static final String DISPLAY_0_169 = """
            {"action":"block","blockType":"weapons","checkTrustedContacts":null,"cyberTrustedAccess":true}""";

    static List<String> displays() {
        return List.of(
                DISPLAY_0_169,
                """
                {"action":"show"}""",
                // 0.171.0's three variants, with every member their schema has
                """
                {"mode":"show","version":1,"trustedContacts":"check","annotation":{"kind":"wellbeingHelpline","subject":"answer"}}""",
                """
                {"mode":"hide","version":1,"replacement":{"kind":"wellbeingPromptHelpline"}}""",
                """
                {"mode":"block","version":1,"reason":{"kind":"protection","protectionType":"self_harm"}}""",
                """
                {"mode":"block","version":1,"reason":{"kind":"cyber","trustedAccess":false}}""",
                // a later codex: a mode and members this SDK does not know
                """
                {"mode":"blur","version":2,"radius":3}""");
    }

    private static String itemCompleted(String display) {
        return """
                {"method":"item/completed","params":{"threadId":"t","turnId":"u","completedAtMs":5,"item":{"type":"agentMessage",\
                "id":"m","text":"…","moderation":{"moderated":true,"display":%s}}},"emittedAtMs":1}""".formatted(display);
    }

    @ParameterizedTest
    @MethodSource("displays")
    void bothShapesDecodeAndReencodeUnchanged(String display) throws Exception {
        for (ObjectMapper mapper : List.of(JSON, new ObjectMapper())) {
            JsonNode wire = mapper.readTree(itemCompleted(display));
            ServerNotification n = mapper.treeToValue(wire, ServerNotification.class);
            assertThat(n).isInstanceOf(ServerNotification.ItemCompleted.class);
            assertThat(mapper.readTree(mapper.writeValueAsString(n))).isEqualTo(wire);

            AgentMessageDisplay d = mapper.readValue(display, AgentMessageDisplay.class);
            assertThat(mapper.readTree(mapper.writeValueAsString(d))).isEqualTo(mapper.readTree(display));
        }
    }

    @Test
    void theOldShapeKeepsItsMembersForWhoReadsThem() throws Exception {
        ServerNotification.ItemCompleted n = (ServerNotification.ItemCompleted) JSON.readValue(
                itemCompleted(DISPLAY_0_169), ServerNotification.class);
        ThreadItem.AgentMessage message = (ThreadItem.AgentMessage) n.params().item();
        AgentMessageDisplay display = message.moderation().display();
        assertThat(display).isInstanceOf(AgentMessageDisplay.Unrecognized.class);
        assertThat(display.mode()).isNull();
        JsonNode raw = ((AgentMessageDisplay.Unrecognized) display).raw();
        assertThat(raw.path("action").asText()).isEqualTo("block");
        assertThat(raw.path("blockType").asText()).isEqualTo("weapons");
        assertThat(raw.has("checkTrustedContacts")).isTrue();
        // the values stay out of toString(): the shape is printed, not the content
        assertThat(display.toString()).doesNotContain("weapons").contains("action");
    }

    @Test
    void theNewShapesDecodeToTheirVariants() throws Exception {
        assertThat(JSON.readValue("""
                {"mode":"show","version":1,"trustedContacts":"skip"}""", AgentMessageDisplay.class))
                .isEqualTo(new AgentMessageDisplay.Show(null, TrustedContacts.SKIP, 1));
        AgentMessageDisplay hide = JSON.readValue("""
                {"mode":"hide","version":1,"replacement":{"kind":"wellbeingPromptHelpline"}}""",
                AgentMessageDisplay.class);
        assertThat(hide).isInstanceOf(AgentMessageDisplay.Hide.class);
        AgentMessageDisplay block = JSON.readValue("""
                {"mode":"block","version":1,"reason":{"kind":"protection","protectionType":"p"}}""",
                AgentMessageDisplay.class);
        assertThat(block).isInstanceOfSatisfying(AgentMessageDisplay.Block.class,
                b -> assertThat(b.reason()).isInstanceOf(BlockReason.Protection.class));
    }
}
