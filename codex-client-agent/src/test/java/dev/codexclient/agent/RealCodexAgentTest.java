package dev.codexclient.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codexclient.ApprovalPolicy;
import dev.codexclient.DynamicTool;
import dev.codexclient.ToolResult;
import dev.codexclient.events.CodexEventListener;
import dev.codexclient.events.ExtensionEvent;
import dev.codexclient.testkit.CodexBinary;
import dev.codexclient.testkit.ModelStep;
import dev.codexclient.testkit.ScriptedModelServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Agent runs against the real codex app-server, driven offline by a scripted model. */
@Tag("real-codex")
@Timeout(120)
class RealCodexAgentTest {
    @TempDir
    Path tmp;
    Path repo;
    ScriptedModelServer model;
    final List<ExtensionEvent> events = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp() throws IOException {
        model = ScriptedModelServer.start();
        repo = tmp.resolve("repo");
        Files.createDirectories(repo.resolve("src"));
        Files.writeString(repo.resolve("src/Main.java"), "class Main {}\n");
    }

    @AfterEach
    void tearDown() {
        model.close();
    }

    private AgentRunner.Builder runner() {
        Path codex = CodexBinary.pinned();
        return AgentRunner.builder()
                .stdio(s -> {
                    s.executable(codex);
                    model.applyEnvironment(s);
                })
                .client(c -> c.requestTimeout(Duration.ofSeconds(30))
                        .interruptGracePeriod(Duration.ofSeconds(10))
                        .eventListener(new CodexEventListener() {
                            @Override
                            public void extensionEvent(ExtensionEvent event) {
                                events.add(event);
                            }
                        }));
    }

    private Workspace workspace() {
        return Workspace.builder().parentDirectory(tmp.resolve("workspaces")).allowedRoot(repo)
                .mount(HostMount.of(repo, "repo")).build();
    }

    @Test
    void theModelWritesAFileInsideTheWorkspaceAndTheHostIsUntouched() throws IOException {
        model.enqueue(ModelStep.applyPatch(ModelStep.addFilePatch("repo/NOTES.md", "written by the model\n")),
                ModelStep.reply("I wrote the notes.").withUsage(200, 20));
        try (Workspace ws = workspace()) {
            AgentResult<Void> result = runner().build().run(AgentRun.builder("Write notes")
                    .workspace(ws).approvals(ApprovalPolicy.acceptAll()).build());
            assertThat(result.text()).isEqualTo("I wrote the notes.");
            assertThat(Files.readString(ws.directory().resolve("repo/NOTES.md"))).isEqualTo("written by the model\n");
            assertThat(repo.resolve("NOTES.md")).doesNotExist();
            assertThat(result.invocations()).anySatisfy(i -> {
                assertThat(i.kind()).isEqualTo(ToolInvocation.Kind.FILE_CHANGE);
                assertThat(i.outcome()).isEqualTo(ToolInvocation.Outcome.COMPLETED);
            });
            System.out.println(result);
        }
    }
}
