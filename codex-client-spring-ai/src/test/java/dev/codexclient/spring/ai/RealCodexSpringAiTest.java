package dev.codexclient.spring.ai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.TurnResult;
import dev.codexclient.protocol.AskForApproval;
import dev.codexclient.protocol.SandboxMode;
import dev.codexclient.protocol.ThreadItem;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.protocol.TurnStatus;
import dev.codexclient.testkit.CodexBinary;
import dev.codexclient.testkit.ModelRequest;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.testkit.ScriptedModelServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.annotation.Tool;

/** The Spring AI bridges against the real codex app-server, driven offline by a scripted model. */
@Tag("real-codex")
@Timeout(120)
class RealCodexSpringAiTest {
    private static final Duration TURN = Duration.ofSeconds(60);
    private final ScriptedModelServer model = ScriptedModelServer.start();
    @TempDir
    Path workspace;

    @AfterEach
    void stopModel() {
        model.close();
    }

    private CodexClient client() {
        return CodexClient.builder().codexBinary(binary()).workingDirectory(workspace)
                .experimentalApi(true).requestTimeout(Duration.ofSeconds(30)).stdio(model::applyEnvironment).build();
    }

    /** The pinned codex, or the one {@code -Dcodex.binary} names (another version, for a compatibility run). */
    private static Path binary() {
        String configured = System.getProperty("codex.binary", "");
        return configured.isBlank() ? CodexBinary.pinned() : Path.of(configured);
    }

    private ThreadStartParams threadParams() {
        return ThreadStartParams.builder().cwd(workspace.toString()).approvalPolicy(AskForApproval.Simple.UNTRUSTED)
                .sandbox(SandboxMode.WORKSPACE_WRITE).build();
    }

    /** A bean with {@code @Tool} methods, as an application has them. */
    static final class TicketTools {
        final List<String> calls = new CopyOnWriteArrayList<>();

        @Tool(description = "Look up a ticket by id")
        String lookupTicket(String id, ToolContext context) {
            calls.add(id + "@" + CodexToolContext.threadId(context).orElse("?") + "/"
                    + CodexToolContext.turnId(context).orElse("?"));
            return "ticket " + id + " is OPEN";
        }

        @Tool(description = "Close a ticket")
        String closeTicket(String id) {
            throw new IllegalStateException("ticket " + id + " is locked");
        }
    }

    private static String lastItemType(ModelRequest request) {
        List<JsonNode> input = request.input();
        return input.isEmpty() ? "" : input.get(input.size() - 1).path("type").asText();
    }

    @Test
    void aToolMethodsResultReachesTheModelAndAThrowingOneIsAFailedCall() {
        model.enqueue(ModelStep.callTool("lookupTicket", Map.of("id", "T-1")),
                ModelStep.callTool("closeTicket", Map.of("id", "T-1")), ModelStep.reply("done"));
        TicketTools tools = new TicketTools();
        try (CodexClient codex = client()) {
            CodexThread thread = codex.startThread(threadParams(), SpringAiTools.fromObjects(tools));
            TurnResult result = thread.startTurn("look at T-1, then close it").await(TURN);

            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
            assertThat(tools.calls).containsExactly("T-1@" + thread.id() + "/" + result.turnId().orElseThrow());
            List<ModelRequest> requests = model.requests();
            JsonNode declared = requests.get(0).json().path("tools");
            assertThat(requests.get(0).tools()).contains("lookupTicket", "closeTicket");
            assertThat(declared.toString()).contains("Look up a ticket by id");
            assertThat(requests.get(1).functionCallOutputs().values()).singleElement()
                    .satisfies(out -> assertThat(out).contains("ticket T-1 is OPEN"));
            // Spring AI's default processor makes the exception's message the text; codex marks the call failed.
            assertThat(requests.get(2).functionCallOutputs().values()).anySatisfy(out ->
                    assertThat(out).contains("ticket T-1 is locked"));
            assertThat(result.itemsOf(ThreadItem.DynamicToolCall.class)).extracting(ThreadItem.DynamicToolCall::tool,
                    ThreadItem.DynamicToolCall::success).containsExactly(
                    org.assertj.core.groups.Tuple.tuple("lookupTicket", true),
                    org.assertj.core.groups.Tuple.tuple("closeTicket", false));
        }
    }

    @Test
    void aChatClientConversationOfTwoStreamedMessagesRunsOnOneThread() {
        TicketTools tools = new TicketTools();
        model.whenAlways(r -> lastItemType(r).equals("function_call_output"),
                ModelStep.reply("T-9 is open, as you asked."));
        model.whenAlways(r -> r.lastUserText().contains("first"),
                ModelStep.callTool("lookupTicket", Map.of("id", "T-9")));
        model.whenAlways(r -> r.lastUserText().contains("second"),
                ModelStep.reply("You asked about T-9 before.").withChunkSize(4));
        try (CodexClient codex = client();
             CodexChatModel chatModel = CodexChatModel.builder(codex).threadParams(threadParams()).build()) {
            ChatClient chat = ChatClient.builder(chatModel).defaultAdvisors(new CodexConversationAdvisor())
                    .defaultTools(tools).build();

            List<ChatResponse> first = chat.prompt().system("You answer about tickets.").user("first: is T-9 open?")
                    .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "support-1"))
                    .stream().chatResponse().collectList().block(TURN);
            List<ChatResponse> second = chat.prompt().user("second: what did I ask?")
                    .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "support-1"))
                    .stream().chatResponse().collectList().block(TURN);

            assertThat(text(first)).isEqualTo("T-9 is open, as you asked.");
            assertThat(text(second)).isEqualTo("You asked about T-9 before.");
            assertThat(second).hasSizeGreaterThan(2); // streamed in pieces, then the end with codex's metadata
            ChatResponse firstEnd = first.get(first.size() - 1);
            ChatResponse secondEnd = second.get(second.size() - 1);
            assertThat(CodexMetadata.threadId(secondEnd)).isEqualTo(CodexMetadata.threadId(firstEnd)).isPresent();
            assertThat(CodexMetadata.toolCalls(firstEnd)).singleElement()
                    .isInstanceOfSatisfying(ThreadItem.DynamicToolCall.class, c ->
                            assertThat(c.tool()).isEqualTo("lookupTicket"));
            assertThat(firstEnd.getMetadata().getUsage().getTotalTokens()).isPositive();
            assertThat(tools.calls).singleElement().satisfies(c ->
                    assertThat(c).startsWith("T-9@" + CodexMetadata.threadId(firstEnd).orElseThrow()));

            // The second message went to the same thread: codex sent the model the first exchange with it, and the
            // system message as the thread's developer instructions.
            ModelRequest last = model.requests().get(model.requests().size() - 1);
            assertThat(last.inputContains("first: is T-9 open?")).isTrue();
            assertThat(last.inputContains("T-9 is open, as you asked.")).isTrue();
            assertThat(last.inputContains("You answer about tickets.")).isTrue();
            assertThat(last.lastUserText()).isEqualTo("second: what did I ask?");
        }
    }

    private static String text(List<ChatResponse> responses) {
        StringBuilder text = new StringBuilder();
        responses.forEach(r -> text.append(r.getResult().getOutput().getText()));
        return text.toString();
    }
}
