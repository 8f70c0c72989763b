package dev.codexclient.agent;

import dev.codexclient.CodexClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import dev.codexclient.agent.workspace.Workspace;
import dev.codexclient.agent.workspace.HostMount;
import dev.codexclient.agent.session.SessionStore;

/**
 * Another JVM for {@link RealCodexCrossProcessSessionTest}: one agent run in a workspace built from a host
 * directory, with a session key and a file session store, as a service restarted between two requests would run it.
 * The codex it spawns inherits this JVM's environment ({@code HOME}, {@code CODEX_HOME}).
 */
public final class SessionRunMain {
    private SessionRunMain() {
    }

    /**
     * Runs once and writes {@code threadId resumed workspaceDirectory} to the result file.
     *
     * @param args the codex executable, the host directory, the workspaces' parent, the session store's
     *             directory, the session key, the prompt, the result file
     * @throws Exception when the run fails
     */
    public static void main(String[] args) throws Exception {
        Path codex = Path.of(args[0]);
        Path repo = Path.of(args[1]);
        AgentRunner runner = AgentRunner.builder()
                .client(() -> CodexClient.builder().codexBinary(codex).workingDirectory(repo.getParent())
                        .requestTimeout(Duration.ofSeconds(30)))
                .sessions(SessionStore.inDirectory(Path.of(args[3])))
                .build();
        try (Workspace ws = Workspace.builder().parentDirectory(Path.of(args[2])).allowedRoot(repo)
                .mount(HostMount.of(repo, "repo")).build()) {
            AgentResult<Void> result = runner.run(AgentRun.builder(args[5]).workspace(ws).sessionKey(args[4])
                    .build());
            Files.writeString(Path.of(args[6]), result.threadId() + " " + result.resumed() + " " + ws.directory(),
                    StandardCharsets.UTF_8);
        }
    }
}
