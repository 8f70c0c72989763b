package dev.codexclient.spring.boot.ai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.codexclient.errors.CodexTurnFailedException;
import dev.codexclient.spring.ai.CodexChatModel;
import dev.codexclient.spring.ai.CodexMetadata;
import dev.codexclient.testkit.CodexBinary;
import dev.codexclient.testkit.IsolatedHome;
import dev.codexclient.testkit.ModelRequest;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.testkit.ScriptedModelServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.MessageChatMemoryAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * A Spring Boot 4 application with the starter, {@code codex-client-spring-ai} and properties, nothing else: it gets
 * a codex {@code ChatModel} and a {@code ChatClient.Builder}, and a {@code ChatClient} of it works on the real codex.
 */
@Tag("real-codex")
@Timeout(180)
class RealCodexSpringAiApplicationTest {
    private static final Duration TURN = Duration.ofSeconds(60);
    private final ScriptedModelServer model = ScriptedModelServer.start();
    @TempDir
    Path workspace;

    @AfterEach
    void stopModel() {
        model.close();
    }

    /** The application: auto-configuration, and a bean with a {@code @Tool} method. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Application {
        @Bean
        TicketTools ticketTools() {
            return new TicketTools();
        }
    }

    /** A bean with a {@code @Tool} method, as an application has them. */
    static class TicketTools {
        @Tool(description = "Look up a ticket by id")
        String lookupTicket(String id) {
            return "ticket " + id + " is OPEN";
        }
    }

    private ConfigurableApplicationContext start(String... more) {
        List<String> properties = new ArrayList<>(List.of(
                "codex.binary=" + binary(),
                "codex.home=" + model.codexHome(),
                "codex.working-directory=" + workspace,
                "codex.request-timeout=30s",
                "spring.ai.codex.chat.thread.cwd=" + workspace,
                "spring.ai.codex.chat.thread.sandbox=read-only",
                "spring.ai.codex.chat.options.effort=low"));
        for (Map.Entry<String, String> variable : model.environment().entrySet()) {
            if (!variable.getKey().equals("CODEX_HOME")) {
                properties.add("codex.environment[" + variable.getKey() + "]=" + variable.getValue());
            }
        }
        TreeSet<String> removed = new TreeSet<>(IsolatedHome.CLEARED_VARIABLES);
        removed.addAll(IsolatedHome.HOME_VARIABLES);
        properties.add("codex.remove-environment=" + String.join(",", removed));
        properties.addAll(List.of(more));
        return new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
                .properties(properties.toArray(String[]::new)).run();
    }

    private static Path binary() {
        String configured = System.getProperty("codex.binary", System.getenv("CODEX_BINARY"));
        return configured != null && !configured.isBlank() ? Path.of(configured) : CodexBinary.pinned();
    }

    @Test
    void theAutoConfiguredChatClientRunsAConversationWithAToolAndStreams() {
        model.when(r -> r.lastUserText().equals("is T-9 open?"), ModelStep.callTool("lookupTicket",
                Map.of("id", "T-9")));
        model.when(r -> r.functionCallOutputs().values().stream().anyMatch(o -> o.contains("T-9 is OPEN")),
                ModelStep.reply("T-9 is open."));
        model.when(r -> r.lastUserText().equals("and what did I ask?"),
                ModelStep.reply("You asked about T-9.").withChunkSize(4));
        try (ConfigurableApplicationContext context = start("codex.experimental-api=true")) {
            assertThat(context.getBean(ChatModel.class)).isInstanceOf(CodexChatModel.class);
            ChatClient chat = context.getBean(ChatClient.Builder.class)
                    .defaultTools(context.getBean(TicketTools.class)).build();

            ChatResponse first = chat.prompt().user("is T-9 open?")
                    .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "support-1")).call().chatResponse();
            List<ChatResponse> second = chat.prompt().user("and what did I ask?")
                    .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "support-1")).stream().chatResponse()
                    .collectList().block(TURN);

            assertThat(first.getResult().getOutput().getText()).isEqualTo("T-9 is open.");
            // Streamed: pieces (the starter's publisher merges those that come within its 50 ms delta interval), then
            // the end with codex's metadata.
            List<ChatResponse> pieces = second.subList(0, second.size() - 1);
            assertThat(pieces).isNotEmpty();
            assertThat(String.join("", pieces.stream().map(r -> r.getResult().getOutput().getText()).toList()))
                    .isEqualTo("You asked about T-9.");
            assertThat(CodexMetadata.threadId(second.get(second.size() - 1)))
                    .isEqualTo(CodexMetadata.threadId(first));
            ModelRequest last = model.requests().get(model.requests().size() - 1);
            assertThat(last.inputContains("T-9 is open.")).as("the conversation's thread").isTrue();
            // spring.ai.codex.chat.options.effort reached codex, which asks the model with it.
            assertThat(last.json().path("reasoning").path("effort").asText()).isEqualTo("low");
        }
    }

    /** The ERROR events of the application's log while {@code run} runs. */
    private static List<ILoggingEvent> errorsWhile(Runnable run) {
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        root.addAppender(logged);
        try {
            run.run();
        } finally {
            root.detachAppender(logged);
        }
        return logged.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.ERROR)).toList();
    }

    /**
     * A failed stream, with a memory advisor or without, reaches the subscriber as codex's exception, and neither the
     * bridge nor the advisor chain logs anything. Spring AI's {@code MessageAggregator} logs every failed stream of a
     * {@code ChatClient} at ERROR, whatever the model (spring-projects/spring-ai#5781); the guide's property silences
     * it, and then nothing at all is logged at ERROR.
     */
    @Test
    void aFailedStreamReachesTheSubscriberAsTheTurnsFailureAndNothingOfOursIsLoggedAtError() {
        model.enqueue(ModelStep.fail(500, "{\"error\":{\"message\":\"scripted failure\"}}"),
                ModelStep.fail(500, "{\"error\":{\"message\":\"scripted failure\"}}"),
                ModelStep.fail(500, "{\"error\":{\"message\":\"scripted failure\"}}"));
        try (ConfigurableApplicationContext context = start()) {
            ChatClient plain = context.getBean(ChatClient.Builder.class).build();
            ChatClient withMemory = context.getBean(ChatClient.Builder.class).defaultAdvisors(MessageChatMemoryAdvisor
                    .builder(MessageWindowChatMemory.builder().build()).build()).build();

            List<ILoggingEvent> errors = errorsWhile(() -> {
                for (ChatClient chat : List.of(plain, withMemory)) {
                    assertThatThrownBy(() -> chat.prompt().user("this fails")
                            .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "c-1")).stream().content()
                            .collectList().block(TURN)).isInstanceOf(CodexTurnFailedException.class);
                }
            });
            assertThat(errors).isNotEmpty().allSatisfy(e -> {
                assertThat(e.getLoggerName()).isEqualTo("org.springframework.ai.chat.model.MessageAggregator");
                assertThat(e.getThrowableProxy().getClassName()).isEqualTo(CodexTurnFailedException.class.getName());
            });
        }
        try (ConfigurableApplicationContext context = start(
                "logging.level.org.springframework.ai.chat.model.MessageAggregator=off")) {
            ChatClient chat = context.getBean(ChatClient.Builder.class).build();
            assertThat(errorsWhile(() -> assertThatThrownBy(() -> chat.prompt().user("this fails").stream().content()
                    .collectList().block(TURN)).isInstanceOf(CodexTurnFailedException.class))).isEmpty();
        }
    }

    @Test
    void aPromptWithToolsWithoutTheExperimentalApiSaysWhichPropertyTurnsItOn() {
        try (ConfigurableApplicationContext context = start()) {
            ChatClient chat = context.getBean(ChatClient.Builder.class)
                    .defaultTools(context.getBean(TicketTools.class)).build();

            assertThatThrownBy(() -> chat.prompt().user("is T-9 open?").call().content())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("codex.experimental-api=true");
        }
    }
}
