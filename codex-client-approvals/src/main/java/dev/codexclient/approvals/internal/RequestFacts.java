package dev.codexclient.approvals.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.codexclient.ApprovalRequest;
import dev.codexclient.approvals.ApprovalKind;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * What the inbox reads from an approval request: its kind, its params as JSON with every string masked, the ids of
 * its thread, turn and item, and the key that matches a request codex sends again to its entry.
 *
 * <p>codex keeps a pending request and, when a client resumes its thread, sends the same request again: the same
 * JSON-RPC id and the same params (thread, turn, item and approval ids). The JSON-RPC id is numbered per server
 * process and is not given to a policy; the key is made of the method and the ids in the params, which name one
 * request of one turn: a new server (codex restarted) runs a new turn with new ids, so an old entry is never
 * matched to a new request.
 *
 * @param kind     the kind
 * @param request  the request
 * @param params   the params, masked
 * @param threadId the thread (the conversation of a legacy request)
 * @param turnId   the turn
 * @param itemId   the item (the call of a legacy request)
 * @param key      the key of replays
 */
public record RequestFacts(ApprovalKind kind, ApprovalRequest request, JsonNode params, String threadId,
                           Optional<String> turnId, Optional<String> itemId, String key) {

    /**
     * Reads {@code request}.
     *
     * @param request the request
     * @param mapper  the protocol's mapper
     * @param mask    masks a text
     * @return what the inbox keeps of it
     */
    public static RequestFacts of(ApprovalRequest request, ObjectMapper mapper, UnaryOperator<String> mask) {
        ApprovalKind kind = ApprovalKind.of(request);
        JsonNode raw = mapper.valueToTree(params(request));
        String thread = first(raw, "threadId", "conversationId").orElse("");
        Optional<String> turn = first(raw, "turnId");
        Optional<String> item = first(raw, "itemId", "callId");
        String key = kind.method() + "|" + thread + "|" + turn.orElse("") + "|" + item.orElse("") + "|"
                + first(raw, "approvalId").orElse("");
        return new RequestFacts(kind, request, masked(raw, mask), thread, turn, item, key);
    }

    private static Object params(ApprovalRequest request) {
        if (request instanceof ApprovalRequest.Command c) {
            return c.params();
        } else if (request instanceof ApprovalRequest.FileChange f) {
            return f.params();
        } else if (request instanceof ApprovalRequest.Permissions p) {
            return p.params();
        } else if (request instanceof ApprovalRequest.LegacyCommand l) {
            return l.params();
        }
        return ((ApprovalRequest.LegacyPatch) request).params();
    }

    private static Optional<String> first(JsonNode node, String... fields) {
        for (String f : fields) {
            JsonNode v = node.get(f);
            if (v != null && v.isTextual()) {
                return Optional.of(v.textValue());
            }
        }
        return Optional.empty();
    }

    /**
     * {@return a copy of {@code node} with every string, and every field name, passed through {@code mask}}
     *
     * @param node the JSON
     * @param mask masks a text
     */
    public static JsonNode masked(JsonNode node, UnaryOperator<String> mask) {
        if (node.isTextual()) {
            return TextNode.valueOf(mask.apply(node.textValue()));
        } else if (node.isArray()) {
            ArrayNode out = ((ArrayNode) node).arrayNode();
            node.forEach(n -> out.add(masked(n, mask)));
            return out;
        } else if (node.isObject()) {
            ObjectNode out = ((ObjectNode) node).objectNode();
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> f = it.next();
                out.set(mask.apply(f.getKey()), masked(f.getValue(), mask));
            }
            return out;
        }
        return node;
    }
}
