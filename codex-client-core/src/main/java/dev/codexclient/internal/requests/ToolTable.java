package dev.codexclient.internal.requests;

import dev.codexclient.DynamicTool;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The dynamic tools a client answers {@code item/tool/call} with: the client's own, declared on every thread, and
 * those declared on one thread only ({@code CodexClient#startThread(params, tools)}), kept by thread id.
 *
 * <p>A thread's own tools stay while the thread may still call them: across idle periods and restarts
 * (codex keeps a thread's declared tools with the thread), until the server closes the thread, which it does when it
 * unloads it; a later {@code thread/resume} declares them again.
 *
 * <p>Threading: safe for concurrent use; lookups never block.
 */
public final class ToolTable {
    private final Map<String, DynamicTool> clientTools;
    private final Map<String, Map<String, DynamicTool>> byThread = new ConcurrentHashMap<>();

    /**
     * @param clientTools the client's own tools, declared on every thread
     */
    public ToolTable(List<DynamicTool> clientTools) {
        Map<String, DynamicTool> tools = new LinkedHashMap<>();
        clientTools.forEach(t -> tools.put(t.name(), t));
        this.clientTools = tools;
    }

    /** {@return the client's own tools, in the order they were registered} */
    public List<DynamicTool> clientTools() {
        return List.copyOf(clientTools.values());
    }

    /**
     * Checks the tools of one thread: names unique among them and not taken by the client's own tools, which codex
     * would be given twice.
     *
     * @param tools the thread's tools
     * @return the tools by name, in order
     * @throws IllegalArgumentException when two tools share a name
     */
    public Map<String, DynamicTool> checked(List<DynamicTool> tools) {
        Map<String, DynamicTool> byName = new LinkedHashMap<>();
        for (DynamicTool t : tools) {
            Objects.requireNonNull(t, "tool");
            if (clientTools.containsKey(t.name())) {
                throw new IllegalArgumentException("the client declares a tool named " + t.name()
                        + " on every thread already");
            }
            if (byName.putIfAbsent(t.name(), t) != null) {
                throw new IllegalArgumentException("two tools named " + t.name() + " for one thread");
            }
        }
        return byName;
    }

    /**
     * Answers the calls of {@code threadId} with these tools, from now on; replaces what the thread had.
     *
     * @param threadId the thread
     * @param tools    the thread's tools, as {@link #checked} returned them; empty forgets the thread
     */
    public void declare(String threadId, Map<String, DynamicTool> tools) {
        if (tools.isEmpty()) {
            byThread.remove(threadId);
        } else {
            byThread.put(threadId, Map.copyOf(tools));
        }
    }

    /**
     * Forgets the tools of a thread the server closed.
     *
     * @param threadId the thread
     */
    public void forget(String threadId) {
        byThread.remove(threadId);
    }

    /**
     * {@return the tool that answers a call of {@code name} on {@code threadId}: the thread's own, else the client's}
     *
     * @param threadId the calling thread; null when the call names none
     * @param name     the tool's name
     */
    public Optional<DynamicTool> find(String threadId, String name) {
        Map<String, DynamicTool> own = threadId == null ? null : byThread.get(threadId);
        DynamicTool tool = own == null ? null : own.get(name);
        return Optional.ofNullable(tool != null ? tool : clientTools.get(name));
    }

    /** {@return how many threads have tools of their own} */
    public int threads() {
        return byThread.size();
    }
}
