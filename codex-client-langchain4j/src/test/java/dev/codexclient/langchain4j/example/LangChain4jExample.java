package dev.codexclient.langchain4j.example;

import dev.codexclient.ApprovalPolicy;
import dev.codexclient.CodexClient;
import dev.codexclient.langchain4j.CodexStreamingChatModel;
import dev.codexclient.protocol.SandboxMode;
import dev.codexclient.protocol.ThreadStartParams;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.TokenStream;
import dev.langchain4j.service.UserMessage;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.concurrent.CompletableFuture;

/**
 * Codex behind a LangChain4j AI service: a conversation of two questions on one codex thread (its memory id), both
 * streamed, and a {@code @Tool} method codex may call. Runs the codex found on the PATH (or the pinned one), with your
 * codex login, in the directory given as the first argument:
 *
 * <pre>
 * mvn -pl codex-client-langchain4j test-compile exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=dev.codexclient.langchain4j.example.LangChain4jExample -Dexec.args=/path/to/a/repository
 * </pre>
 */
public final class LangChain4jExample {
    private LangChain4jExample() {
    }

    /** The AI service: one conversation per memory id. */
    public interface Assistant {
        /**
         * Asks the assistant.
         *
         * @param conversation the conversation (a codex thread)
         * @param question     the question
         * @return the answer, as it streams
         */
        TokenStream ask(@MemoryId String conversation, @UserMessage String question);
    }

    /** A tool of the application. */
    public static final class Calendar {
        /**
         * {@return today's date}
         */
        @Tool("Today's date, ISO-8601")
        public String today() {
            return LocalDate.now().toString();
        }
    }

    /**
     * Runs the example.
     *
     * @param args the repository to work in (default: the current directory)
     */
    public static void main(String[] args) {
        Path repository = Path.of(args.length > 0 ? args[0] : ".").toAbsolutePath();
        try (CodexClient codex = CodexClient.builder().experimentalApi(true)
                .approvals(ApprovalPolicy.declineAll()).build();
             CodexStreamingChatModel model = CodexStreamingChatModel.builder(codex).tools(new Calendar())
                     .threadParams(ThreadStartParams.builder().cwd(repository.toString())
                             .sandbox(SandboxMode.READ_ONLY).build()).build()) {
            Assistant assistant = AiServices.builder(Assistant.class).streamingChatModel(model)
                    .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20))
                    .chatRequestTransformer(model.memoryIdTransformer()).build();
            print(assistant.ask("example", "What does this repository build? Answer in two sentences."));
            print(assistant.ask("example", "Which of its files changed most recently, and how many days ago is "
                    + "that from today?"));
        }
    }

    private static void print(TokenStream answer) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        answer.onPartialResponse(System.out::print).onCompleteResponse(r -> done.complete(null))
                .onError(done::completeExceptionally).start();
        done.join();
        System.out.println();
    }
}
