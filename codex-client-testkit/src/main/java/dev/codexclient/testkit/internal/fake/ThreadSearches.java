package dev.codexclient.testkit.internal.fake;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.protocol.RequestId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The fake's thread searches, shaped as codex 0.171.0 answers them: {@code thread/search/stream} sends a
 * {@code thread/search/partial} per matching row (keyed by the request's id), then the page; while searches are
 * held, the page waits until they are released, so that a test can cancel one in flight.
 * {@code thread/search/stream/cancel} is acknowledged with {@code {}} for any id, and a held search it names then
 * fails with {@code -32600 "thread search cancelled"}, as codex's does.
 */
public final class ThreadSearches {
    /** A search whose page is held back. */
    private record Held(Connection connection, RequestId id, ObjectNode page) {
    }

    private final ThreadStore store;
    private final Map<RequestId, Held> held = new LinkedHashMap<>();
    private boolean hold;

    public ThreadSearches(ThreadStore store) {
        this.store = store;
    }

    /** {@return the {@code thread/search} page of {@code params}: the matching rows, no further page} */
    public ObjectNode page(JsonNode params) {
        return page(store.search(params));
    }

    private static ObjectNode page(List<ObjectNode> rows) {
        ObjectNode page = Json.object();
        rows.forEach(page.putArray("data")::add);
        page.putNull("nextCursor");
        page.putNull("backwardsCursor");
        return page;
    }

    /**
     * Answers {@code thread/search/stream}: its partial rows at once, its page at once or when released.
     *
     * @param connection where the request came from
     * @param id         the request's id
     * @param params     the request's params
     */
    public void stream(Connection connection, RequestId id, JsonNode params) {
        List<ObjectNode> rows = store.search(params);
        ObjectNode page = page(rows);
        // The rows go out and the page is held under the lock release() takes: a test that releases as soon as it
        // sees a row must find the page held, not release nothing and leave the page held for good.
        synchronized (this) {
            for (ObjectNode row : rows) {
                ObjectNode partial = Json.object();
                partial.set("requestId", Json.tree(id));
                partial.putArray("data").add(row.deepCopy());
                connection.notify("thread/search/partial", partial);
            }
            if (hold) {
                held.put(id, new Held(connection, id, page));
                return;
            }
        }
        connection.respond(id, page, false);
    }

    /**
     * Answers {@code thread/search/stream/cancel} (or {@code thread/search/cancel}): {@code {}}, then the held
     * search it names fails as cancelled.
     *
     * @param connection where the request came from
     * @param id         the cancel request's id
     * @param params     its params ({@code requestId})
     */
    public void cancel(Connection connection, RequestId id, JsonNode params) {
        Held cancelled = null;
        JsonNode target = params.path("requestId");
        if (target.isTextual() || target.isIntegralNumber()) {
            RequestId named = Json.convert(target, RequestId.class);
            synchronized (this) {
                Held h = held.get(named);
                if (h != null && h.connection() == connection) {
                    cancelled = held.remove(named);
                }
            }
        }
        connection.respond(id, Json.object(), false);
        if (cancelled != null) {
            connection.respondError(cancelled.id(), -32600, "thread search cancelled", null);
        }
    }

    /**
     * Holds the pages of the searches to come ({@code true}), or stops holding them.
     *
     * @param hold whether to hold
     */
    public synchronized void hold(boolean hold) {
        this.hold = hold;
    }

    /** {@return how many searches were held} Answers them, in the order they came. */
    public int release() {
        List<Held> answer;
        synchronized (this) {
            answer = new ArrayList<>(held.values());
            held.clear();
        }
        answer.forEach(h -> h.connection().respond(h.id(), h.page(), false));
        return answer.size();
    }
}
