package dev.codexclient.examples;

import dev.codexclient.agent.AgentBudgetExceededException;
import dev.codexclient.agent.AgentResult;
import dev.codexclient.agent.AgentRun;
import dev.codexclient.agent.AgentRunException;
import dev.codexclient.agent.AgentRunner;
import dev.codexclient.agent.workspace.HostMount;
import dev.codexclient.agent.TokenBudget;
import dev.codexclient.agent.ToolInvocation;
import dev.codexclient.agent.workspace.Workspace;
import dev.codexclient.testkit.ModelStep;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * An agent run: a part of this repository copied into a private workspace, reviewed by codex under a token budget
 * and a deadline, with the verdict parsed into a record. The repository itself is never touched: codex works on
 * the copy, and the copy is deleted at the end.
 *
 * <pre>mvn -B -q -pl examples exec:java -Dexample=AgentReview [-Dexec.args="codex-client-agent/src/main/java"]</pre>
 */
public final class AgentReview {
    private AgentReview() {
    }

    /** The shape of the review's answer. */
    record Verdict(boolean approve, String summary, List<String> findings) {
    }

    public static void main(String[] args) {
        Path root = repositoryRoot();
        Path part = root.resolve(args.length > 0 ? args[0] : "codex-client-agent/src/main/java").normalize();
        String finding = "HostTree: a file is read relative to the directory it was listed in";
        String verdict = "{\"approve\":true,\"summary\":\"Workspaces copy only regular files and never follow links "
                + "out of a mount.\",\"findings\":[\"" + finding + "\"]}";
        try (Backend backend = Backend.open(
                model -> model.enqueue(
                        Backend.shell("find code -name '*.java' | sort | head -20"),
                        ModelStep.json(Map.of("approve", true,
                                "summary", "Workspaces copy only regular files and never follow links out of a mount.",
                                "findings", List.of(finding)))
                                .withUsage(1800, 120)),
                fake -> fake.enqueueTurn(turn -> turn.tokenUsage(1800, 120, 0, 0).agentMessage(verdict)
                        .completed()));
             Workspace workspace = Workspace.builder()
                     .allowedRoot(root)
                     .parentDirectory(backend.workspace)
                     .mount(HostMount.builder(part, "code").include("**/*.java").maxBytes(2_000_000).build())
                     .maxTotalBytes(5_000_000)
                     .build()) {
            System.out.println("backend: " + backend.name);
            System.out.print(workspace.preview().render());

            AgentRunner runner = AgentRunner.builder().client(backend::client).build();
            AgentRun<Verdict> run = AgentRun.builder("Review the Java code under ./code for resource leaks and "
                            + "unsafe file handling. Answer with a verdict.", Verdict.class)
                    .workspace(workspace)
                    .budget(TokenBudget.ofTotal(200_000))
                    .timeout(Duration.ofMinutes(5))
                    .build();
            try {
                AgentResult<Verdict> result = runner.run(run);
                Verdict v = result.output().orElseThrow();
                System.out.println("verdict: " + (v.approve() ? "approve" : "request changes") + " - " + v.summary());
                v.findings().forEach(f -> System.out.println("finding: " + f));
                for (ToolInvocation i : result.invocations()) {
                    System.out.println("tool:    " + i.kind() + " " + i.name() + " -> " + i.outcome());
                }
                System.out.println("tokens:  " + result.usage().totalTokens() + " of a budget of 200000");
            } catch (AgentBudgetExceededException e) {
                System.out.println("over budget (" + e.limit() + (e.tokenLimit().isPresent() ? " of "
                        + e.tokenLimit().getAsLong() : "") + "): " + e.getMessage());
            } catch (AgentRunException e) {
                System.out.println("failed in " + e.phase() + ": " + e.getMessage());
            }
        }
    }

    /** The repository's root: the nearest directory upwards with the agent module in it. */
    private static Path repositoryRoot() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("codex-client-agent")) && Files.exists(p.resolve("pom.xml"))) {
                return p;
            }
        }
        throw new IllegalStateException("run this example inside the codex-client repository");
    }
}
