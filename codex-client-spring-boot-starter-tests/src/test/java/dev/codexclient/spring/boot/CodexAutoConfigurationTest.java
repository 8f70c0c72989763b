package dev.codexclient.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.ApprovalDecision;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.ApprovalRequest;
import dev.codexclient.ClientEvents;
import dev.codexclient.CodexClient;
import java.util.concurrent.Flow;
import dev.codexclient.protocol.ServerNotification;
import dev.codexclient.CodexThread;
import dev.codexclient.DynamicTool;
import dev.codexclient.ToolResult;
import dev.codexclient.errors.CodexTimeoutException;
import dev.codexclient.errors.CodexBackpressureException;
import dev.codexclient.errors.CodexTransportException;
import dev.codexclient.telemetry.CodexTelemetryListener;
import dev.codexclient.telemetry.ConnectionOpened;
import dev.codexclient.testkit.CodexTestExtension;
import dev.codexclient.testkit.FakeCodexAppServer;
import dev.codexclient.testkit.RecordedRequest;
import dev.codexclient.transport.Transport;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

/** The auto-configured client: its conditions on and off, and what it takes from properties and beans. */
@ExtendWith(CodexTestExtension.class)
class CodexAutoConfigurationTest {
    private static final Duration WAIT = Duration.ofSeconds(5);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CodexAutoConfiguration.class));

    /** The runner with the fake as the application's transport. */
    private static ApplicationContextRunner connectedTo(ApplicationContextRunner runner, FakeCodexAppServer fake) {
        return runner.withBean(Transport.class, fake::connectInMemory);
    }

    @Test
    void aTransportBeanConnectsTheClientWhichIntroducesItselfFromProperties(FakeCodexAppServer fake) {
        connectedTo(runner, fake)
                .withPropertyValues("codex.client-info.name=acme-bot", "codex.client-info.version=1.4.0",
                        "codex.opt-out-notifications=thread/started")
                .run(context -> {
                    assertThat(context).hasSingleBean(CodexClient.class).hasSingleBean(CodexProperties.class);
                    CodexClient client = context.getBean(CodexClient.class);
                    assertThat(client.isClosed()).isFalse();
                    JsonNode info = fake.clientInfo().orElseThrow();
                    assertThat(info.path("name").asText()).isEqualTo("acme-bot");
                    assertThat(info.path("title").asText()).as("the title defaults to the name").isEqualTo("acme-bot");
                    assertThat(info.path("version").asText()).isEqualTo("1.4.0");
                    JsonNode capabilities = fake.clientCapabilities().orElseThrow();
                    assertThat(capabilities.path("experimentalApi").asBoolean()).isFalse();
                    assertThat(capabilities.path("optOutNotificationMethods").get(0).asText())
                            .isEqualTo("thread/started");
                });
    }

    @Test
    void theClientIsClosedWithTheContext(FakeCodexAppServer fake) {
        CodexClient[] client = new CodexClient[1];
        connectedTo(runner, fake).run(context -> client[0] = context.getBean(CodexClient.class));
        assertThat(client[0].isClosed()).isTrue();
    }

    @Test
    void codexEnabledFalseConfiguresNoClient(FakeCodexAppServer fake) {
        connectedTo(runner, fake).withPropertyValues("codex.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(CodexClient.class).doesNotHaveBean(CodexProperties.class);
            assertThat(fake.requestCount()).as("no handshake").isZero();
        });
    }

    /** The pattern for an application that runs with or without codex: it asks for the client when it needs it. */
    static final class Answers {
        private final ObjectProvider<CodexClient> codex;

        Answers(ObjectProvider<CodexClient> codex) {
            this.codex = codex;
        }

        String ask(String question) {
            CodexClient client = codex.getIfAvailable();
            return client == null ? "codex is switched off here"
                    : client.startThread().startTurn(question).await(WAIT).finalText();
        }
    }

    @Test
    void beansThatTakeTheClientFromAnObjectProviderStartWithCodexSwitchedOffAndUseItWhenItIsOn(
            FakeCodexAppServer fake) {
        connectedTo(runner, fake).withPropertyValues("codex.enabled=false")
                .withBean(Answers.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(Answers.class).ask("hi")).isEqualTo("codex is switched off here");
                });
        fake.onTurnStart(t -> t.agentMessage("hello").completed());
        connectedTo(runner, fake).withBean(Answers.class)
                .run(context -> assertThat(context.getBean(Answers.class).ask("hi")).isEqualTo("hello"));
    }

    /** What a subscriber to a thread's publisher got when it requested nothing until the turn had ended. */
    private record Lagged(List<ServerNotification> events, Throwable error) {
    }

    private static Lagged lagBehindATurn(CodexClient client) throws Exception {
        // The thread's publisher is hot: subscribed before the turn, every event is live (a turn's replayed events
        // are never merged).
        CodexThread thread = client.startThread();
        List<ServerNotification> got = new CopyOnWriteArrayList<>();
        Throwable[] error = new Throwable[1];
        CountDownLatch done = new CountDownLatch(1);
        // onSubscribe comes on the thread's lane, not in subscribe(): wait for it before the turn starts.
        CompletableFuture<Flow.Subscription> subscription = new CompletableFuture<>();
        thread.publisher().subscribe(new Flow.Subscriber<>() {
            public void onSubscribe(Flow.Subscription s) {
                subscription.complete(s);
            }

            public void onNext(ServerNotification item) {
                got.add(item);
            }

            public void onError(Throwable t) {
                error[0] = t;
                done.countDown();
            }

            public void onComplete() {
                done.countDown();
            }
        });
        Flow.Subscription s = subscription.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        thread.startTurn("go").await(WAIT);
        s.request(Long.MAX_VALUE);
        thread.unsubscribe();
        assertThat(done.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        return new Lagged(got, error[0]);
    }

    @Test
    void thePublisherPropertiesSetTheBufferAndTheOverflow(FakeCodexAppServer fake) {
        fake.onTurnStart(t -> t.agentMessageDeltas("a", "b", "c", "d").completed());
        connectedTo(runner, fake).withPropertyValues("codex.publisher.buffer-size=16",
                        "codex.publisher.overflow=coalesce-deltas")
                .run(context -> {
                    Lagged lagged = lagBehindATurn(context.getBean(CodexClient.class));
                    assertThat(lagged.error()).isNull();
                    assertThat(lagged.events()).filteredOn(ServerNotification.ItemAgentMessageDelta.class::isInstance)
                            .singleElement().extracting(e -> ((ServerNotification.ItemAgentMessageDelta) e)
                                    .params().delta()).isEqualTo("abcd");
                });
        connectedTo(runner, fake).withPropertyValues("codex.publisher.buffer-size=2").run(context ->
                assertThat(lagBehindATurn(context.getBean(CodexClient.class)).error())
                        .isInstanceOf(CodexBackpressureException.class));
    }

    /** The deltas a subscriber with open demand, subscribed before the turn, got: their texts, in order. */
    private static List<String> deltasToAnOpenDemand(CodexClient client) throws Exception {
        CodexThread thread = client.startThread();
        List<String> deltas = new CopyOnWriteArrayList<>();
        CountDownLatch subscribed = new CountDownLatch(1);
        CountDownLatch completed = new CountDownLatch(1);
        thread.publisher().subscribe(new Flow.Subscriber<>() {
            public void onSubscribe(Flow.Subscription s) {
                s.request(Long.MAX_VALUE);
                subscribed.countDown();
            }

            public void onNext(ServerNotification item) {
                if (item instanceof ServerNotification.ItemAgentMessageDelta d) {
                    deltas.add(d.params().delta());
                } else if (item instanceof ServerNotification.TurnCompleted) {
                    completed.countDown();
                }
            }

            public void onError(Throwable t) {
            }

            public void onComplete() {
            }
        });
        assertThat(subscribed.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        thread.startTurn("go").await(WAIT);
        assertThat(completed.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        return deltas;
    }

    @Test
    void theDeltaIntervalSpacesTheDeltasOfAnOpenDemand(FakeCodexAppServer fake) {
        fake.onTurnStart(t -> t.agentMessageDeltas("a", "b", "c", "d").completed());
        // An interval longer than the test: after the first delta, the rest wait, merged, until the item completes.
        connectedTo(runner, fake).withPropertyValues("codex.publisher.delta-interval=1h").run(context -> {
            List<String> deltas = deltasToAnOpenDemand(context.getBean(CodexClient.class));
            assertThat(String.join("", deltas)).isEqualTo("abcd");
            assertThat(deltas).hasSizeLessThanOrEqualTo(2);
        });
        connectedTo(runner, fake).withPropertyValues("codex.publisher.delta-interval=0s").run(context ->
                assertThat(deltasToAnOpenDemand(context.getBean(CodexClient.class)))
                        .containsExactly("a", "b", "c", "d"));
    }

    @Test
    void withoutTheCoreOnTheClassPathNothingIsConfigured(FakeCodexAppServer fake) {
        connectedTo(runner, fake).withClassLoader(new FilteredClassLoader(CodexClient.class)).run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(CodexClient.class);
            assertThat(fake.requestCount()).as("no handshake").isZero();
        });
    }

    @Test
    void aClientOfTheApplicationTakesThePlaceOfTheAutoConfiguredOne(FakeCodexAppServer fake) {
        try (FakeCodexAppServer other = new FakeCodexAppServer()) {
            connectedTo(runner, fake)
                    .withBean("myClient", CodexClient.class,
                            () -> CodexClient.builder().transport(other.connectInMemory()).build())
                    .run(context -> {
                        assertThat(context).hasSingleBean(CodexClient.class).hasBean("myClient");
                        assertThat(fake.requestCount()).as("the auto-configuration made no handshake").isZero();
                        assertThat(other.connectionCount()).isOne();
                    });
        }
    }

    @Test
    void withoutAPolicyBeanApprovalsAreDeclined(FakeCodexAppServer fake) {
        connectedTo(runner, fake).run(context -> {
            String thread = context.getBean(CodexClient.class).startThread().id();
            assertThat(fake.requestCommandApproval(thread, "turn-1", "rm -rf /").awaitResponse(WAIT).decision())
                    .contains("decline");
        });
    }

    @Test
    void theApprovalPolicyPropertyChoosesAmongRefusals(FakeCodexAppServer fake) {
        connectedTo(runner, fake).withPropertyValues("codex.approval-policy=cancel").run(context -> {
            String thread = context.getBean(CodexClient.class).startThread().id();
            assertThat(fake.requestFileChangeApproval(thread, "turn-1", "edit").awaitResponse(WAIT).decision())
                    .contains("cancel");
        });
    }

    @Test
    void anUnknownApprovalPolicyFailsTheStartUp(FakeCodexAppServer fake) {
        connectedTo(runner, fake).withPropertyValues("codex.approval-policy=accept").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("accept");
            assertThat(fake.requestCount()).as("no handshake").isZero();
        });
    }

    @Test
    void anApprovalPolicyBeanDecidesOverTheProperty(FakeCodexAppServer fake) {
        ApprovalPolicy<ApprovalRequest> gitStatusOnly = ApprovalPolicy.sync(request ->
                request instanceof ApprovalRequest.Command c && c.params().command().equals("git status")
                        ? ApprovalDecision.ACCEPT : ApprovalDecision.DECLINE);
        connectedTo(runner, fake)
                .withPropertyValues("codex.approval-policy=cancel")
                .withBean(ApprovalPolicy.class, () -> gitStatusOnly)
                .run(context -> {
                    String thread = context.getBean(CodexClient.class).startThread().id();
                    assertThat(fake.requestCommandApproval(thread, "turn-1", "git status").awaitResponse(WAIT)
                            .decision()).contains("accept");
                    assertThat(fake.requestCommandApproval(thread, "turn-1", "git push").awaitResponse(WAIT)
                            .decision()).contains("decline");
                });
    }

    @Test
    void aPolicyBeanForOneKindDecidesThatKind(FakeCodexAppServer fake) {
        connectedTo(runner, fake)
                .withPropertyValues("codex.approval-policy=cancel")
                .withUserConfiguration(CommandPolicy.class)
                .run(context -> {
                    String thread = context.getBean(CodexClient.class).startThread().id();
                    assertThat(fake.requestCommandApproval(thread, "turn-1", "ls").awaitResponse(WAIT).decision())
                            .contains("accept");
                    assertThat(fake.requestCommandApproval(thread, "turn-1", "rm -rf /").awaitResponse(WAIT)
                            .decision()).contains("decline");
                    assertThat(fake.requestFileChangeApproval(thread, "turn-1", "edit").awaitResponse(WAIT)
                            .decision()).as("other kinds: the property").contains("cancel");
                });
    }

    @Test
    void dynamicToolBeansAreDeclaredOnEveryThreadAndTurnTheExperimentalApiOn(FakeCodexAppServer fake) {
        ObjectNode schema = JsonNodeFactory.instance.objectNode().put("type", "object");
        connectedTo(runner, fake)
                .withBean("clock", DynamicTool.class, () -> DynamicTool.ofJson("clock", "What time it is", schema,
                        arguments -> ToolResult.text("noon")))
                .withBean("weather", DynamicTool.class, () -> DynamicTool.ofJson("weather", "The weather", schema,
                        arguments -> ToolResult.text("sunny")))
                .run(context -> {
                    assertThat(fake.clientCapabilities().orElseThrow().path("experimentalApi").asBoolean()).isTrue();
                    String thread = context.getBean(CodexClient.class).startThread().id();
                    RecordedRequest start = fake.takeRequest("thread/start", WAIT);
                    assertThat(start.params().path("dynamicTools").findValuesAsText("name"))
                            .containsExactlyInAnyOrder("clock", "weather");
                    assertThat(fake.requestToolCall(thread, "turn-1", "clock", schema).awaitResponse(WAIT).result()
                            .toString()).contains("noon");
                });
    }

    @Test
    void codexLazyLeavesAnApplicationsOwnBeanNamedCodexClientAsTheApplicationDeclaredIt(FakeCodexAppServer fake) {
        runner.withPropertyValues("codex.lazy=true")
                .withBean("codexClient", CodexClient.class, () -> CodexClient.builder()
                        .transport(fake.connectInMemory()).build())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBeanFactory().getBeanDefinition("codexClient").isLazyInit()).isFalse();
                    assertThat(fake.requestCount()).as("the application's client connected at the start")
                            .isPositive();
                });
    }

    /** A structured answer whose JSON names its members in snake case. */
    record Verdict(String riskLevel) {
    }

    @Test
    void structuredOutputIsReadWithTheApplicationsObjectMapper(FakeCodexAppServer fake) {
        fake.onTurnStart(turn -> turn.agentMessage("{\"risk_level\":\"high\"}").completed());
        connectedTo(runner, fake)
                .withBean(com.fasterxml.jackson.databind.ObjectMapper.class, () -> new com.fasterxml.jackson.databind
                        .ObjectMapper().setPropertyNamingStrategy(
                                com.fasterxml.jackson.databind.PropertyNamingStrategies.SNAKE_CASE))
                .run(context -> {
                    Verdict verdict = context.getBean(CodexClient.class).startThread()
                            .startTurn("How risky?", Verdict.class).await(WAIT);
                    assertThat(verdict).isEqualTo(new Verdict("high"));
                });
    }

    @Test
    void toolsWithTheExperimentalApiSwitchedOffFailTheStartUpSayingWhy(FakeCodexAppServer fake) {
        ObjectNode schema = JsonNodeFactory.instance.objectNode().put("type", "object");
        connectedTo(runner, fake)
                .withPropertyValues("codex.experimental-api=false")
                .withBean(DynamicTool.class, () -> DynamicTool.ofJson("clock", "What time it is", schema,
                        arguments -> ToolResult.text("noon")))
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause().isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("codex.experimental-api=true").hasMessageContaining("clock");
                });
    }

    @Test
    void everyEventListenerBeanHearsTheClientInOrder(FakeCodexAppServer fake) {
        List<String> heard = new CopyOnWriteArrayList<>();
        CountDownLatch both = new CountDownLatch(2);
        connectedTo(runner, fake)
                // Registered in the other order: the beans' order decides.
                .withBean("second", CodexTelemetryListener.class, () -> new Named("second", 2, heard, both))
                .withBean("first", CodexTelemetryListener.class, () -> new Named("first", 1, heard, both))
                .run(context -> {
                    // The client tells its listeners of the handshake it made when the context started.
                    assertThat(both.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
                    assertThat(heard).containsExactly("first", "second");
                });
    }

    @Test
    void theConnectionMonitorIsTheClientsListener(FakeCodexAppServer fake) {
        connectedTo(runner, fake).run(context -> {
            assertThat(context).hasSingleBean(CodexConnectionMonitor.class);
            assertThat(ClientEvents.hasListener(context.getBean(CodexClient.class))).isTrue();
        });
    }

    @Test
    void customizersHaveTheLastWord(FakeCodexAppServer fake) {
        connectedTo(runner, fake)
                .withPropertyValues("codex.client-info.name=from-properties")
                .withBean(CodexClientBuilderCustomizer.class,
                        () -> builder -> builder.clientInfo("from-customizer", "Customized", "2.0"))
                .run(context -> assertThat(fake.clientInfo().orElseThrow().path("name").asText())
                        .isEqualTo("from-customizer"));
    }

    @Test
    void clientInfoWithoutANameIsRejected(FakeCodexAppServer fake) {
        connectedTo(runner, fake).withPropertyValues("codex.client-info.version=1.0").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("codex.client-info.name");
        });
    }

    @Test
    void aTransportBeanWinsOverTheConnectionProperties(FakeCodexAppServer fake) {
        // application.properties describes production's codex; the test's bean replaces it, as beans do in Spring.
        connectedTo(runner, fake).withPropertyValues("codex.home=/tmp/codex-home", "codex.binary=/opt/codex",
                        "codex.environment[HOME]=/tmp/home", "codex.websocket.url=ws://127.0.0.1:1",
                        "codex.unix-socket.path=/tmp/none.sock", "codex.restart.enabled=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    CodexClient client = context.getBean(CodexClient.class);
                    assertThat(client.serverProcess()).as("nothing spawned").isEmpty();
                    fake.onTurnStart(t -> t.agentMessage("from the fake").completed());
                    assertThat(client.startThread().startTurn("hi").await(WAIT).finalText())
                            .isEqualTo("from the fake");
                });
    }

    @Test
    void twoServersToConnectToAreRejected() {
        runner.withPropertyValues("codex.websocket.url=ws://127.0.0.1:4500", "codex.unix-socket.path=/tmp/codex.sock")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause()
                            .hasMessageContaining("codex.websocket.url and codex.unix-socket.path");
                });
    }

    @Test
    void aBearerTokenIsNotSentInCleartextToAnotherHost() {
        runner.withPropertyValues("codex.websocket.url=ws://codex.example:4500", "codex.websocket.bearer-token=t0k3n")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause().isInstanceOf(IllegalStateException.class)
                            .hasMessageNotContaining("t0k3n");
                });
    }

    @Test
    void theClientSpawnsTheServerFromProperties(FakeCodexAppServer fake) {
        ProcessHandle[] server = new ProcessHandle[1];
        runner.withPropertyValues("codex.command=" + String.join(",", fake.childProcessCommand()),
                        "codex.initialize-timeout=20s", "codex.close-timeout=2s")
                .run(context -> {
                    CodexClient client = context.getBean(CodexClient.class);
                    server[0] = client.serverProcess().orElseThrow();
                    assertThat(server[0].isAlive()).isTrue();
                    assertThat(client.startThread().id()).isNotEmpty();
                });
        assertThat(server[0].onExit().orTimeout(WAIT.toMillis(), TimeUnit.MILLISECONDS).join().isAlive())
                .as("the server ended with the context").isFalse();
    }

    @Test
    void aMissingCodexFailsTheStartUpAtOnceWithAnExplanation() {
        runner.withPropertyValues("codex.binary=/nonexistent/bin/codex").run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            assertThat(failure).rootCause().isInstanceOf(CodexTransportException.class)
                    .hasMessageContaining("/nonexistent/bin/codex");
            FailureAnalysis analysis = new CodexClientFailureAnalyzer().analyze(failure);
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).contains("/nonexistent/bin/codex");
            assertThat(analysis.getAction()).contains("codex.binary").contains("codex.enabled=false");
        });
    }

    @Test
    void aServerThatDoesNotAnswerTheHandshakeFailsTheStartUpAfterTheInitializeTimeout(FakeCodexAppServer fake) {
        fake.on("initialize").always().noReply();
        connectedTo(runner, fake).withPropertyValues("codex.initialize-timeout=200ms").run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            assertThat(failure).rootCause().isInstanceOf(CodexTimeoutException.class);
            FailureAnalysis analysis = new CodexClientFailureAnalyzer().analyze(failure);
            assertThat(analysis).isNotNull();
            assertThat(analysis.getAction()).contains("codex.initialize-timeout");
        });
    }

    @Test
    void theFailureAnalyzerLeavesTheApplicationsOwnFailuresAlone() {
        assertThat(new CodexClientFailureAnalyzer().analyze(new CodexTransportException("the client was closed")))
                .isNull();
    }

    /** An application's policy for command approvals alone, typed as such. */
    @Configuration(proxyBeanMethods = false)
    static class CommandPolicy {
        @Bean
        ApprovalPolicy<ApprovalRequest.Command> listingOnly() {
            return ApprovalPolicy.sync(command -> command.params().command().equals("ls")
                    ? ApprovalDecision.ACCEPT : ApprovalDecision.DECLINE);
        }
    }

    /** A listener that records its name when the connection opens. */
    private record Named(String name, int order, List<String> heard, CountDownLatch latch)
            implements CodexTelemetryListener, Ordered {
        @Override
        public void connectionOpened(ConnectionOpened event) {
            heard.add(name);
            latch.countDown();
        }

        @Override
        public int getOrder() {
            return order;
        }
    }
}
