package dev.codexclient.internal.rpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.Iterator;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * A copy of server JSON with every string value passed through a redactor, for JSON that leaves the connection in
 * an exception (the {@code data} of an error response): a server may echo the credential it rejects there as well
 * as in the message.
 */
final class RedactedJson {
    private RedactedJson() {
    }

    /** {@code node} with its string values redacted; the original is left as it is. */
    static JsonNode copy(JsonNode node, UnaryOperator<String> redactor) {
        if (node.isTextual()) {
            String text = node.textValue();
            String redacted = redactor.apply(text);
            return redacted.equals(text) ? node : TextNode.valueOf(redacted);
        }
        if (node.isObject()) {
            ObjectNode copy = ((ObjectNode) node).objectNode();
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> member = it.next();
                copy.set(member.getKey(), copy(member.getValue(), redactor));
            }
            return copy;
        }
        if (node.isArray()) {
            ArrayNode copy = ((ArrayNode) node).arrayNode(node.size());
            for (JsonNode element : node) {
                copy.add(copy(element, redactor));
            }
            return copy;
        }
        // Numbers, booleans and null are immutable and carry no text.
        return node;
    }
}
