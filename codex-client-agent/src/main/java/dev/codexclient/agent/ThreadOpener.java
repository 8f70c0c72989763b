package dev.codexclient.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.Codex;
import dev.codexclient.CodexClient;
import dev.codexclient.CodexThread;
import dev.codexclient.DynamicTool;
import dev.codexclient.ThreadOptions;
import dev.codexclient.errors.CodexException;
import dev.codexclient.protocol.ThreadResumeParams;
import dev.codexclient.protocol.ThreadStartParams;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import dev.codexclient.agent.workspace.Workspace;
import dev.codexclient.agent.session.SessionEntry;
import dev.codexclient.agent.session.SessionStore;

/**
 * Opens a run's thread: resumes the one its session key stored when the entry matches the run, else starts one
 * with the run's tools and stores it. One job: the thread of a run.
 *
 * <p>A run in a workspace is matched by the workspace's fingerprint alone, not by its directory: each workspace has a
 * directory of its own (two runs with one key at once must not share one, and a crashed run's leftovers are deleted
 * by owner), so a stored directory would never match in the next process. On resume codex is given the run's
 * directory as the thread's {@code cwd}; it tells the model the new working directory and writable root before the
 * turn. A run in a host directory is matched by that directory.
 */
final class ThreadOpener {
    private static final Logger LOG = LoggerFactory.getLogger(ThreadOpener.class);

    private final SessionStore sessions;

    ThreadOpener(SessionStore sessions) {
        this.sessions = sessions;
    }

    /** The thread of a run and whether it was resumed. */
    record Opened(CodexThread thread, boolean resumed) {
    }

    /**
     * Opens the run's thread on {@code codex}, with the thread's own options: {@code tools} (the run's, as the tracker
     * watches them), which codex declares on this thread only and keeps with it, and the run's approval policy, which
     * decides this thread's approvals whatever else the client or pool serves.
     */
    Opened open(Codex codex, AgentRun<?> run, List<DynamicTool> tools, RunTracker tracker, RunFailures failures) {
        ThreadOptions options = ThreadOptions.builder().tools(tools).approvals(run.approvals()).build();
        String cwd = run.workingDirectory().toString();
        String location = run.workspace().isPresent() ? "" : cwd;
        String fingerprint = run.workspace().map(Workspace::fingerprint).orElse("");
        String toolsHash = toolsHash(run.tools());
        Map<String, JsonNode> config = new LinkedHashMap<>();
        if (!run.mcpServers().isEmpty()) {
            ObjectNode servers = JsonNodeFactory.instance.objectNode();
            run.mcpServers().forEach(s -> servers.set(s.name(), s.config()));
            config.put("mcp_servers", servers);
        }
        Optional<String> key = run.ephemeral() ? Optional.empty() : run.sessionKey();
        Optional<SessionEntry> stored = key.flatMap(sessions::load);
        if (stored.isPresent() && stored.get().matches(location, fingerprint, toolsHash)) {
            try {
                // The run needs the thread, not its history: codex leaves the turns out where it can (the client
                // sends excludeTurns only to a server that takes it), so a resume costs the same after any number
                // of runs.
                ThreadResumeParams.Builder p = ThreadResumeParams.builder().threadId(stored.get().threadId())
                        .cwd(cwd).approvalPolicy(run.askForApproval()).sandbox(run.sandbox()).excludeTurns(true);
                run.model().model().ifPresent(p::model);
                if (!config.isEmpty()) {
                    p.config(config);
                }
                return new Opened(codex.resumeThread(p.build(), options), true);
            } catch (CodexException e) {
                LOG.info("run {}: resuming thread {} failed ({}); starting a new thread", tracker.runId(),
                        stored.get().threadId(), failures.mask(e.getMessage()));
            }
        }
        try {
            ThreadStartParams.Builder p = ThreadStartParams.builder().cwd(cwd)
                    .approvalPolicy(run.askForApproval()).sandbox(run.sandbox());
            if (run.ephemeral()) {
                p.ephemeral(true);
            }
            run.model().model().ifPresent(p::model);
            if (!config.isEmpty()) {
                p.config(config);
            }
            CodexThread thread = codex.startThread(p.build(), options);
            key.ifPresent(k -> sessions.save(k, new SessionEntry(thread.id(), location, fingerprint,
                    versionOf(codex, thread), toolsHash)));
            return new Opened(thread, false);
        } catch (CodexException e) {
            throw failures.failure(FailurePhase.REQUEST, "the thread could not be started: " + e.getMessage(), e,
                    null);
        }
    }

    /**
     * The version of the codex that started the thread: a client's server, as its handshake reported it; on a pool,
     * the one the thread records ({@code cliVersion}), as the pool's members may differ.
     */
    private static String versionOf(Codex codex, CodexThread thread) {
        if (codex instanceof CodexClient client) {
            return client.serverInfo().codexVersion().map(Object::toString).orElse("");
        }
        String recorded = thread.info().cliVersion();
        return recorded == null ? "" : recorded;
    }

    /** A hash of the tools' names, descriptions and schemas, in name order; empty for none. */
    static String toolsHash(List<DynamicTool> tools) {
        if (tools.isEmpty()) {
            return "";
        }
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
        List<DynamicTool> sorted = new ArrayList<>(tools);
        sorted.sort(Comparator.comparing(DynamicTool::name));
        for (DynamicTool t : sorted) {
            for (String field : List.of(t.name(), t.description(), t.inputSchema().toString())) {
                byte[] bytes = field.getBytes(StandardCharsets.UTF_8);
                digest.update(Integer.toString(bytes.length).getBytes(StandardCharsets.US_ASCII));
                digest.update((byte) ':');
                digest.update(bytes);
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }
}
