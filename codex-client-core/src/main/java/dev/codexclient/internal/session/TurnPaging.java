package dev.codexclient.internal.session;

import dev.codexclient.CodexVersion;
import dev.codexclient.ServerInfo;
import dev.codexclient.errors.CodexRpcException;
import dev.codexclient.internal.rpc.RpcConnection;
import dev.codexclient.protocol.SortDirection;
import dev.codexclient.protocol.ThreadResumeParams;
import dev.codexclient.protocol.ThreadResumeResponse;
import dev.codexclient.protocol.ThreadTurnsListParams;
import dev.codexclient.protocol.TurnItemsView;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the server of one connection can resume a thread without its turns ({@code thread/resume} with
 * {@code excludeTurns}) and list a thread's latest turns ({@code thread/turns/list}), so that what the client asks for
 * costs the same after ten turns or ten thousand. Without them {@code thread/resume} returns the thread's whole
 * history, which the client's own resumes (a restart, a thread first used after one) do not use.
 *
 * <p>Found by exporting the schema of each published codex and trying the requests on the real servers:
 * <ul>
 *   <li>before 0.125.0 neither exists; a server ignores {@code excludeTurns} as it ignores any member it does not
 *       know (0.98.0 and 0.120.0 return every turn, with or without {@code experimentalApi});</li>
 *   <li>0.125.0 and 0.128.0 have both (there were no 0.126 and 0.127);</li>
 *   <li>from 0.129.0 to 0.150.x both are experimental: without the {@code experimentalApi} capability the server
 *       refuses {@code excludeTurns} ({@code -32600 "thread/resume.excludeTurns requires experimentalApi
 *       capability"});</li>
 *   <li>from 0.151.0 on both are stable again (0.169.0, 0.171.0).</li>
 * </ul>
 * A server that refuses {@code excludeTurns} all the same is asked again without it, and not asked with it again on
 * that connection.
 */
final class TurnPaging {
    /** Resolved on first use, so loading the class looks up no SLF4J provider. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(TurnPaging.class);
    }

    static final CodexVersion FIRST = CodexVersion.parse("0.125.0");
    static final CodexVersion EXPERIMENTAL_FROM = CodexVersion.parse("0.129.0");
    static final CodexVersion STABLE_AGAIN = CodexVersion.parse("0.151.0");

    /** A connection whose server pages nothing (an old one, or one that does not say its version). */
    static final TurnPaging NONE = new TurnPaging(false);

    private volatile boolean available;

    private TurnPaging(boolean available) {
        this.available = available;
    }

    /**
     * What the server of a connection offers, from what it said of itself and whether the client declared
     * {@code experimentalApi}.
     */
    static TurnPaging of(ServerInfo server, boolean experimentalApi) {
        return server.codexVersion().map(v -> new TurnPaging(offers(v, experimentalApi))).orElse(NONE);
    }

    static boolean offers(CodexVersion v, boolean experimentalApi) {
        if (v.isBefore(FIRST)) {
            return false;
        }
        return v.isBefore(EXPERIMENTAL_FROM) || !v.isBefore(STABLE_AGAIN) || experimentalApi;
    }

    /** {@return whether the server leaves turns out of {@code thread/resume} and lists the latest turns} */
    boolean available() {
        return available;
    }

    /**
     * Resumes {@code threadId} for the client's own use: without its turns where the server can leave them out.
     *
     * @param send sends {@code thread/resume} with the given params
     * @return the response; its thread has no turns when they were left out
     */
    CompletableFuture<ThreadResumeResponse> resume(String threadId,
            Function<ThreadResumeParams, CompletableFuture<ThreadResumeResponse>> send) {
        return resume(ThreadResumeParams.builder().threadId(threadId).excludeTurns(true).build(), send);
    }

    /**
     * Sends {@code params}, which ask for the thread without its turns ({@code excludeTurns}), as this server can
     * take them: as they are where it can leave turns out, without {@code excludeTurns} where it cannot (a server
     * that refuses the member without {@code experimentalApi} would fail the resume for it), and again without it
     * when the server refuses it all the same.
     *
     * @param send sends {@code thread/resume} with the given params
     * @return the response; its thread has no turns when they were left out
     */
    CompletableFuture<ThreadResumeResponse> resume(ThreadResumeParams params,
            Function<ThreadResumeParams, CompletableFuture<ThreadResumeResponse>> send) {
        ThreadResumeParams plain = params.toBuilder().excludeTurns(null).build();
        if (!available) {
            return send.apply(plain);
        }
        return send.apply(params).handle((r, e) -> {
            if (e == null) {
                return CompletableFuture.completedFuture(r);
            }
            Throwable failure = RpcConnection.unwrap(e);
            if (refusesExcludeTurns(failure)) {
                available = false;
                Log.LOG.info("the server refused excludeTurns ({}); resuming threads with their turns",
                        failure.getMessage());
                return send.apply(plain);
            }
            return CompletableFuture.<ThreadResumeResponse>failedFuture(failure);
        }).thenCompose(f -> f);
    }

    /**
     * The newest {@code count} turns of a thread, newest first, each with every item the server keeps (what a turn
     * that ended unseen completes from).
     */
    ThreadTurnsListParams latest(String threadId, int count) {
        return ThreadTurnsListParams.builder().threadId(threadId).limit((long) count)
                .sortDirection(SortDirection.DESC).itemsView(TurnItemsView.FULL).build();
    }

    private static boolean refusesExcludeTurns(Throwable failure) {
        return failure instanceof CodexRpcException rpc && rpc.code() != CodexRpcException.METHOD_NOT_FOUND
                && rpc.serverMessage().contains("excludeTurns");
    }
}
