package com.example.codexclient.consumer.agent;

import dev.codexclient.CodexClientBuilder;
import dev.codexclient.agent.AgentResult;
import dev.codexclient.agent.AgentRun;
import dev.codexclient.agent.AgentRunner;
import dev.codexclient.agent.workspace.HostMount;
import dev.codexclient.agent.workspace.Workspace;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/** What an application builds on the agent artifact: a review of a copy of its sources, with a typed verdict. */
public final class Reviewer {
    /** The verdict codex returns as structured output. */
    public record Verdict(boolean approve, String summary, List<String> findings) {
    }

    private final AgentRunner runner;

    /** A reviewer whose runs each get a client from {@code clients}. */
    public Reviewer(Supplier<CodexClientBuilder> clients) {
        this.runner = AgentRunner.builder().client(clients).build();
    }

    /** Reviews {@code root}/src in a workspace of its own, which is gone afterwards. */
    public Verdict review(Path root, Path workspaces) {
        try (Workspace ws = Workspace.builder().parentDirectory(workspaces).allowedRoot(root)
                .mount(HostMount.of(root.resolve("src"), "src")).build()) {
            AgentResult<Verdict> result = runner.run(AgentRun.builder("Review ./src", Verdict.class).workspace(ws)
                    .timeout(Duration.ofSeconds(30)).build());
            return result.output().orElseThrow();
        }
    }
}
