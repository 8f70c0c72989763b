package dev.codexclient.langchain4j;

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
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolMemoryId;
import dev.langchain4j.invocation.InvocationParameters;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.TokenStream;
import dev.langchain4j.service.UserMessage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The LangChain4j bridges against the real codex app-server, driven offline by a scripted model. */
@Tag("real-codex")
@Timeout(120)
class RealCodexLangChain4jTest {
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

    /** An object with {@code @Tool} methods, as an application has them. */
    static final class TicketTools {
        final List<String> calls = new CopyOnWriteArrayList<>();

        @Tool("Look up a ticket by id")
        String lookupTicket(String id, @ToolMemoryId Object memoryId, InvocationParameters parameters) {
            calls.add(id + "@" + memoryId + "/" + CodexToolContext.threadId(parameters).orElse("?"));
            return "ticket " + id + " is OPEN";
        }

        @Tool("Close a ticket")
        String closeTicket(String id) {
            throw new IllegalStateException("ticket " + id + " is locked");
        }
    }

    interface Assistant {
        TokenStream chat(@MemoryId String conversation, @UserMessage String text);
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
            CodexThread thread = codex.startThread(threadParams(), LangChain4jTools.fromObjects(tools));
            TurnResult result = thread.startTurn("look at T-1, then close it").await(TURN);

            assertThat(result.status()).isEqualTo(TurnStatus.COMPLETED);
            // Outside a conversation the tool's memory id is the codex thread.
            assertThat(tools.calls).containsExactly("T-1@" + thread.id() + "/" + thread.id());
            List<ModelRequest> requests = model.requests();
            assertThat(requests.get(0).tools()).contains("lookupTicket", "closeTicket");
            assertThat(requests.get(0).json().path("tools").toString()).contains("Look up a ticket by id");
            assertThat(requests.get(1).functionCallOutputs().values()).singleElement()
                    .satisfies(out -> assertThat(out).contains("ticket T-1 is OPEN"));
            assertThat(requests.get(2).functionCallOutputs().values()).anySatisfy(out ->
                    assertThat(out).contains("ticket T-1 is locked"));
            assertThat(result.itemsOf(ThreadItem.DynamicToolCall.class)).extracting(ThreadItem.DynamicToolCall::tool,
                    ThreadItem.DynamicToolCall::success).containsExactly(
                    org.assertj.core.groups.Tuple.tuple("lookupTicket", true),
                    org.assertj.core.groups.Tuple.tuple("closeTicket", false));
        }
    }

    @Test
    void anAiServicesConversationOfTwoStreamedMessagesRunsOnOneThread() throws Exception {
        TicketTools tools = new TicketTools();
        model.whenAlways(r -> lastItemType(r).equals("function_call_output"),
                ModelStep.reply("T-9 is open, as you asked."));
        model.whenAlways(r -> r.lastUserText().contains("first"),
                ModelStep.callTool("lookupTicket", Map.of("id", "T-9")));
        model.whenAlways(r -> r.lastUserText().contains("second"),
                ModelStep.reply("You asked about T-9 before.").withChunkSize(4));
        try (CodexClient codex = client();
             CodexStreamingChatModel chatModel = CodexStreamingChatModel.builder(codex).threadParams(threadParams())
                     .tools(tools).build()) {
            Assistant assistant = AiServices.builder(Assistant.class).streamingChatModel(chatModel)
                    .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20))
                    .chatRequestTransformer(chatModel.memoryIdTransformer()).build();

            List<String> firstParts = new CopyOnWriteArrayList<>();
            ChatResponse first = stream(assistant.chat("support-1", "first: is T-9 open?"), firstParts);
            List<String> secondParts = new CopyOnWriteArrayList<>();
            ChatResponse second = stream(assistant.chat("support-1", "second: what did I ask?"), secondParts);

            assertThat(String.join("", firstParts)).isEqualTo("T-9 is open, as you asked.");
            assertThat(first.aiMessage().text()).isEqualTo("T-9 is open, as you asked.");
            assertThat(String.join("", secondParts)).isEqualTo("You asked about T-9 before.");
            assertThat(secondParts).hasSizeGreaterThan(1);
            CodexChatResponseMetadata firstMeta = (CodexChatResponseMetadata) first.metadata();
            CodexChatResponseMetadata secondMeta = (CodexChatResponseMetadata) second.metadata();
            assertThat(secondMeta.threadId()).isEqualTo(firstMeta.threadId());
            assertThat(firstMeta.toolCalls()).singleElement().isInstanceOfSatisfying(ThreadItem.DynamicToolCall.class,
                    c -> assertThat(c.tool()).isEqualTo("lookupTicket"));
            assertThat(first.tokenUsage().totalTokenCount()).isPositive();
            assertThat(tools.calls).containsExactly("T-9@support-1/" + firstMeta.threadId());

            // Codex sent the model the first exchange with the second message: one thread holds the conversation.
            ModelRequest last = model.requests().get(model.requests().size() - 1);
            assertThat(last.inputContains("first: is T-9 open?")).isTrue();
            assertThat(last.inputContains("T-9 is open, as you asked.")).isTrue();
            assertThat(last.lastUserText()).isEqualTo("second: what did I ask?");
        }
    }

    private static ChatResponse stream(TokenStream stream, List<String> parts) throws Exception {
        CompletableFuture<ChatResponse> done = new CompletableFuture<>();
        stream.onPartialResponse(parts::add).onCompleteResponse(done::complete).onError(done::completeExceptionally)
                .start();
        return done.get(TURN.toSeconds(), TimeUnit.SECONDS);
    }
}
