package dev.codexclient.internal.session;

import dev.codexclient.errors.CodexException;
import dev.codexclient.protocol.ThreadBackgroundTerminal;
import dev.codexclient.protocol.ThreadBackgroundTerminalsListParams;
import dev.codexclient.protocol.ThreadBackgroundTerminalsTerminateParams;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends the commands a turn started that codex keeps running after the turn: codex runs a command as a background
 * terminal, which an interrupt leaves running (so that a server a turn started outlives it on purpose). Stopping a
 * turn terminates those of its own, found by their command item's id ({@code thread/backgroundTerminals/list}, then
 * {@code thread/backgroundTerminals/terminate} for each; experimental, codex 0.140.0 and later), and leaves the
 * thread's other terminals alone.
 */
final class TurnCommands {
    /** Resolved on first use: SLF4J looks up its provider on its first call, which a start that logs nothing skips. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(TurnCommands.class);
    }

    private TurnCommands() {
    }

    /**
     * Terminates the background terminals of {@code threadId} that run the commands {@code commandIds}. Never fails:
     * a server that cannot list or terminate them (an older codex, a client without the experimental API) leaves them
     * as codex does, which is logged.
     *
     * @return completes when every one found was asked to end
     */
    static CompletableFuture<Void> terminate(Calls calls, String threadId, Set<String> commandIds) {
        if (commandIds.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        return list(calls, threadId, null, new ArrayList<>()).thenCompose(terminals -> {
            List<CompletableFuture<?>> asked = new ArrayList<>();
            for (ThreadBackgroundTerminal t : terminals) {
                if (commandIds.contains(t.itemId())) {
                    asked.add(calls.threadBackgroundTerminalsTerminate(ThreadBackgroundTerminalsTerminateParams
                            .builder().threadId(threadId).processId(t.processId()).build()));
                }
            }
            return CompletableFuture.allOf(asked.toArray(CompletableFuture[]::new));
        }).handle((ok, failure) -> {
            if (failure != null) {
                Log.LOG.debug("the commands of a stopped turn of thread {} could not be ended, codex keeps them"
                        + " running: {}", threadId,
                        failure instanceof CodexException ? failure.getMessage() : failure.toString());
            }
            return null;
        });
    }

    private static CompletableFuture<List<ThreadBackgroundTerminal>> list(Calls calls, String threadId, String cursor,
                                                                          List<ThreadBackgroundTerminal> into) {
        return calls.threadBackgroundTerminalsList(ThreadBackgroundTerminalsListParams.builder().threadId(threadId)
                .cursor(cursor).build()).thenCompose(page -> {
                    if (page.data() != null) {
                        into.addAll(page.data());
                    }
                    String next = page.nextCursor();
                    return next == null || next.isEmpty() ? CompletableFuture.completedFuture(into)
                            : list(calls, threadId, next, into);
                });
    }
}
