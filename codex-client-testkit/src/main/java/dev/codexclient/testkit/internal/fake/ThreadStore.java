package dev.codexclient.testkit.internal.fake;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.codexclient.testkit.CodexBinary;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The fake's threads, kept as codex keeps them: created by {@code thread/start} and {@code thread/fork}, found again
 * by {@code thread/resume}, listed a page at a time, archived, named, and holding their ended turns. Answers are
 * JSON shaped like codex 0.169.0's; the store knows nothing about connections or requests.
 */
public final class ThreadStore {
    /** Threads in one {@code thread/list} page when the request gives no {@code limit}. */
    private static final int DEFAULT_LIST_LIMIT = 25;
    private static final String LIST_CURSOR_PREFIX = "fake-cursor-";
    private static final String TURNS_CURSOR_PREFIX = "fake-turns-cursor-";

    /** A stored thread: the public thread object plus what only the store needs. */
    private static final class Stored {
        final ObjectNode thread;
        final long createdSeq;
        boolean archived;

        Stored(ObjectNode thread, long createdSeq) {
            this.thread = thread;
            this.createdSeq = createdSeq;
        }
    }

    /** {@code thread/list} or {@code thread/turns/list} was given a cursor this store never handed out. */
    public static final class InvalidCursorException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        InvalidCursorException(String cursor) {
            super("invalid cursor: " + cursor);
        }
    }

    private final Map<String, Stored> threads = new ConcurrentHashMap<>();
    private final Map<String, long[]> tokenTotals = new ConcurrentHashMap<>();
    private final AtomicLong sequence = new AtomicLong();

    /**
     * Creates a thread, as {@code thread/start} does.
     *
     * @param params the request's params ({@code cwd}, {@code ephemeral}, {@code model}, …)
     * @return the {@code thread/start} result
     */
    public ObjectNode start(JsonNode params) {
        return threadResponse(create(UUID.randomUUID().toString(), params, null), params);
    }

    /**
     * Resumes a thread, as {@code thread/resume} does; an id the store does not know becomes a new thread (the
     * fake has no rollout files to fail on).
     *
     * @param params the request's params
     * @return the {@code thread/resume} result
     */
    public ObjectNode resume(JsonNode params) {
        String threadId = params.path("threadId").asText("");
        Stored stored = threads.get(threadId);
        ObjectNode thread = stored != null ? publicThread(stored) : create(threadId, params, null);
        if (params.path("excludeTurns").asBoolean(false)) {
            thread.putArray("turns");
        }
        return threadResponse(thread, params);
    }

    /**
     * A page of a thread's ended turns, as {@code thread/turns/list} answers: newest first unless
     * {@code sortDirection} is {@code asc}, {@code limit} turns (all by default) and an opaque {@code nextCursor}.
     *
     * @param threadId the thread's id
     * @param params the request's params
     * @return the result, or empty when the store does not hold the thread
     * @throws InvalidCursorException when the cursor is not one this store handed out
     */
    public Optional<ObjectNode> turns(String threadId, JsonNode params) {
        Stored stored = threads.get(threadId);
        if (stored == null) {
            return Optional.empty();
        }
        List<JsonNode> all = new ArrayList<>();
        synchronized (stored) {
            stored.thread.path("turns").forEach(t -> all.add(t.deepCopy()));
        }
        if (!"asc".equals(params.path("sortDirection").asText())) {
            java.util.Collections.reverse(all);
        }
        int offset = 0;
        String cursor = params.path("cursor").asText("");
        if (!cursor.isEmpty()) {
            if (!cursor.matches(TURNS_CURSOR_PREFIX + "[0-9]{1,9}")) {
                throw new InvalidCursorException(cursor);
            }
            offset = Math.min(Integer.parseInt(cursor.substring(TURNS_CURSOR_PREFIX.length())), all.size());
        }
        long requested = params.path("limit").asLong(0);
        int end = requested > 0 ? (int) Math.min(all.size(), offset + requested) : all.size();
        ObjectNode result = Json.object();
        ArrayNode data = result.putArray("data");
        all.subList(offset, end).forEach(data::add);
        if (end < all.size()) {
            result.put("nextCursor", TURNS_CURSOR_PREFIX + end);
        } else {
            result.putNull("nextCursor");
        }
        result.putNull("backwardsCursor");
        return Optional.of(result);
    }

    /**
     * Forks the thread the params name into a new one, as {@code thread/fork} does.
     *
     * @param params the request's params
     * @return the {@code thread/fork} result
     */
    public ObjectNode fork(JsonNode params) {
        return threadResponse(create(UUID.randomUUID().toString(), params, params.path("threadId").asText("")),
                params);
    }

    private ObjectNode create(String id, JsonNode params, String forkedFrom) {
        long now = Instant.now().getEpochSecond();
        String cwd = params.path("cwd").isTextual() ? params.path("cwd").asText() : System.getProperty("user.dir");
        ObjectNode thread = Json.object().put("id", id).put("sessionId", id).put("forkedFromId", forkedFrom)
                .put("preview", "").put("ephemeral", params.path("ephemeral").asBoolean(false))
                .put("modelProvider", "openai").put("createdAt", now).put("updatedAt", now);
        thread.putObject("status").put("type", "idle");
        thread.putNull("path");
        thread.put("cwd", cwd).put("cliVersion", CodexBinary.PINNED_VERSION).put("source", "appServer").putNull("agentNickname")
                .putNull("agentRole").putNull("gitInfo").putNull("name").putNull("projectId");
        thread.putArray("turns");
        threads.put(id, new Stored(thread.deepCopy(), sequence.incrementAndGet()));
        return thread;
    }

    /**
     * {@return whether the store holds a thread with this id}
     *
     * @param threadId the thread's id
     */
    public boolean contains(String threadId) {
        return threads.containsKey(threadId);
    }

    /**
     * {@return the thread as {@code thread/read} returns it: its turns only when asked for, as codex does}
     *
     * @param threadId the thread's id
     * @param includeTurns whether to include the ended turns
     */
    public Optional<ObjectNode> read(String threadId, boolean includeTurns) {
        Stored stored = threads.get(threadId);
        if (stored == null) {
            return Optional.empty();
        }
        ObjectNode thread = publicThread(stored);
        if (!includeTurns) {
            thread.putArray("turns");
        }
        return Optional.of(thread);
    }

    /**
     * {@return the working directory of the thread, if the store holds it}
     *
     * @param threadId the thread's id
     */
    public Optional<String> cwd(String threadId) {
        Stored stored = threads.get(threadId);
        return stored == null ? Optional.empty() : Optional.of(stored.thread.path("cwd").asText());
    }

    /**
     * Archives or unarchives a thread.
     *
     * @param threadId the thread's id
     * @param archived whether it is archived from now on
     * @return the thread, or empty when the store does not hold it
     */
    public Optional<ObjectNode> setArchived(String threadId, boolean archived) {
        Stored stored = threads.get(threadId);
        if (stored == null) {
            return Optional.empty();
        }
        synchronized (stored) {
            stored.archived = archived;
        }
        return Optional.of(publicThread(stored));
    }

    /**
     * Names a thread.
     *
     * @param threadId the thread's id
     * @param name the new name
     * @return whether the store holds the thread
     */
    public boolean setName(String threadId, String name) {
        Stored stored = threads.get(threadId);
        if (stored == null) {
            return false;
        }
        synchronized (stored) {
            stored.thread.put("name", name);
        }
        return true;
    }

    /**
     * Keeps an ended turn in its thread, as codex keeps it in the thread's history: {@code thread/read} with
     * {@code includeTurns} returns it, and the thread's preview and {@code updatedAt} follow it.
     *
     * @param threadId the thread's id
     * @param turn the ended turn as {@code turn/completed} carries it
     * @param userText the text of the turn's input, the thread's preview if it has none yet
     */
    public void turnEnded(String threadId, ObjectNode turn, String userText) {
        Stored stored = threads.get(threadId);
        if (stored == null) {
            return;
        }
        synchronized (stored) {
            if (stored.thread.get("turns") instanceof ArrayNode turns) {
                turns.add(turn.deepCopy());
            }
            stored.thread.put("updatedAt", Instant.now().getEpochSecond());
            if (stored.thread.path("preview").asText("").isEmpty() && !userText.isEmpty()) {
                stored.thread.put("preview", userText);
            }
        }
    }

    /**
     * Adds a turn's token usage to its thread's totals.
     *
     * @param threadId the thread's id
     * @param usage input, cached input, output and reasoning tokens of one step
     * @return the thread's totals after the addition, in the same order
     */
    public long[] addTokenUsage(String threadId, long... usage) {
        long[] total = tokenTotals.computeIfAbsent(threadId, k -> new long[4]);
        synchronized (total) {
            for (int i = 0; i < total.length; i++) {
                total[i] += usage[i];
            }
            return total.clone();
        }
    }

    /** {@return the ids of the stored threads, in creation order} */
    public List<String> threadIds() {
        return ordered().stream().map(s -> s.thread.path("id").asText()).toList();
    }

    private List<Stored> ordered() {
        List<Stored> all = new ArrayList<>(threads.values());
        all.sort(Comparator.comparingLong(s -> s.createdSeq));
        return all;
    }

    /**
     * {@code thread/list} as codex answers it: newest first by default ({@code sortKey} {@code created_at} or
     * {@code updated_at}, {@code sortDirection}), {@code limit} threads a page with an opaque {@code nextCursor} for
     * the next one, and no turns in the listed threads.
     *
     * @param params the request's params
     * @return the {@code thread/list} result
     * @throws InvalidCursorException when the cursor is not one this store handed out
     */
    public ObjectNode list(JsonNode params) {
        boolean archived = params.path("archived").asBoolean(false);
        String sortField = "updated_at".equals(params.path("sortKey").asText()) ? "updatedAt" : "createdAt";
        List<ObjectNode> matching = new ArrayList<>();
        for (Stored stored : ordered()) {
            boolean isArchived;
            synchronized (stored) {
                isArchived = stored.archived;
            }
            if (isArchived == archived) {
                ObjectNode thread = publicThread(stored);
                thread.put("createdSeq", stored.createdSeq);
                matching.add(thread);
            }
        }
        Comparator<ObjectNode> order = Comparator.<ObjectNode>comparingLong(t -> t.path(sortField).asLong())
                .thenComparingLong(t -> t.path("createdSeq").asLong());
        matching.sort("asc".equals(params.path("sortDirection").asText()) ? order : order.reversed());
        int offset = 0;
        String cursor = params.path("cursor").asText("");
        if (!cursor.isEmpty()) {
            if (!cursor.matches(LIST_CURSOR_PREFIX + "[0-9]{1,9}")) {
                throw new InvalidCursorException(cursor);
            }
            offset = Math.min(Integer.parseInt(cursor.substring(LIST_CURSOR_PREFIX.length())), matching.size());
        }
        long requested = params.path("limit").asLong(0);
        int limit = requested > 0 ? (int) Math.min(requested, DEFAULT_LIST_LIMIT * 4L) : DEFAULT_LIST_LIMIT;
        int end = Math.min(offset + limit, matching.size());
        ObjectNode result = Json.object();
        ArrayNode data = result.putArray("data");
        for (ObjectNode thread : matching.subList(offset, end)) {
            thread.remove("createdSeq");
            thread.putArray("turns");
            data.add(thread);
        }
        if (end < matching.size()) {
            result.put("nextCursor", LIST_CURSOR_PREFIX + end);
        } else {
            result.putNull("nextCursor");
        }
        result.putNull("backwardsCursor");
        return result;
    }

    /**
     * The rows of {@code thread/search} and {@code thread/search/stream}: threads (archived or not, as
     * {@code archived} says) whose preview or name holds {@code searchTerm}, case-insensitively, newest first,
     * {@code limit} of them (25 by default), each with its preview as the snippet and no turns.
     *
     * @param params the request's params
     * @return the rows, as {@code data} holds them
     */
    public List<ObjectNode> search(JsonNode params) {
        String term = params.path("searchTerm").asText("").strip().toLowerCase(Locale.ROOT);
        boolean archived = params.path("archived").asBoolean(false);
        long requested = params.path("limit").asLong(0);
        int limit = requested > 0 ? (int) Math.min(requested, DEFAULT_LIST_LIMIT * 4L) : DEFAULT_LIST_LIMIT;
        List<Stored> all = ordered();
        Collections.reverse(all);
        List<ObjectNode> rows = new ArrayList<>();
        for (Stored stored : all) {
            ObjectNode thread = publicThread(stored);
            boolean isArchived;
            synchronized (stored) {
                isArchived = stored.archived;
            }
            String preview = thread.path("preview").asText("");
            String name = thread.path("name").asText("");
            if (isArchived != archived || term.isEmpty() || !(preview.toLowerCase(Locale.ROOT).contains(term)
                    || name.toLowerCase(Locale.ROOT).contains(term))) {
                continue;
            }
            thread.putArray("turns");
            ObjectNode row = Json.object();
            row.set("thread", thread);
            row.put("snippet", preview.isEmpty() ? name : preview);
            rows.add(row);
            if (rows.size() == limit) {
                break;
            }
        }
        return rows;
    }

    private static ObjectNode publicThread(Stored stored) {
        synchronized (stored) {
            return stored.thread.deepCopy();
        }
    }

    private static ObjectNode threadResponse(ObjectNode thread, JsonNode params) {
        String cwd = thread.path("cwd").asText();
        ObjectNode result = Json.object();
        result.set("thread", thread);
        result.put("model", params.path("model").isTextual() ? params.path("model").asText() : "gpt-5.1-codex");
        result.put("modelProvider", "openai").putNull("serviceTier").put("cwd", cwd);
        result.putArray("instructionSources");
        result.set("approvalPolicy", params.path("approvalPolicy").isMissingNode()
                || params.path("approvalPolicy").isNull()
                ? TextNode.valueOf("on-request") : params.get("approvalPolicy").deepCopy());
        result.put("approvalsReviewer", "user");
        String mode = params.path("sandbox").asText("workspace-write");
        ObjectNode sandbox = result.putObject("sandbox");
        switch (mode) {
            case "danger-full-access" -> sandbox.put("type", "dangerFullAccess");
            case "read-only" -> sandbox.put("type", "readOnly").put("networkAccess", false);
            default -> {
                sandbox.put("type", "workspaceWrite");
                sandbox.putArray("writableRoots").add(cwd);
                sandbox.put("networkAccess", false).put("excludeTmpdirEnvVar", false).put("excludeSlashTmp", false);
            }
        }
        result.putNull("reasoningEffort");
        return result;
    }
}
