package dev.codexclient.spring.ai.example;

import dev.codexclient.ApprovalPolicy;
import dev.codexclient.CodexClient;
import dev.codexclient.protocol.SandboxMode;
import dev.codexclient.protocol.ThreadStartParams;
import dev.codexclient.spring.ai.CodexChatModel;
import dev.codexclient.spring.ai.CodexConversationAdvisor;
import dev.codexclient.spring.ai.CodexMetadata;
import java.nio.file.Path;
import java.time.LocalDate;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.tool.annotation.Tool;

/**
 * Codex behind Spring AI's {@code ChatClient}: a conversation of two questions on one codex thread, the first answer
 * streamed, a {@code @Tool} method codex may call, and the commands codex ran read from the response. Runs the codex
 * found on the PATH (or the pinned one), with your codex login, in the directory given as the first argument:
 *
 * <pre>
 * mvn -pl codex-client-spring-ai test-compile exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=dev.codexclient.spring.ai.example.SpringAiExample -Dexec.args=/path/to/a/repository
 * </pre>
 */
public final class SpringAiExample {
    private SpringAiExample() {
    }

    /** A tool of the application, as a Spring bean would have it. */
    public static final class Calendar {
        /**
         * {@return today's date}
         */
        @Tool(description = "Today's date, ISO-8601")
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
             CodexChatModel model = CodexChatModel.builder(codex).threadParams(ThreadStartParams.builder()
                     .cwd(repository.toString()).sandbox(SandboxMode.READ_ONLY).build()).build()) {
            ChatClient chat = ChatClient.builder(model).defaultAdvisors(new CodexConversationAdvisor())
                    .defaultTools(new Calendar()).build();

            chat.prompt().user("What does this repository build? Answer in two sentences.")
                    .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "example"))
                    .stream().content().doOnNext(System.out::print).blockLast();
            System.out.println();

            ChatResponse second = chat.prompt().user("Which of its files changed most recently, and how many days "
                            + "ago is that from today?")
                    .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "example")).call().chatResponse();
            System.out.println(second.getResult().getOutput().getText());
            CodexMetadata.commands(second).forEach(c -> System.out.println("codex ran: " + c.command()));
        }
    }
}
