package dev.codexclient.internal.json;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codexclient.protocol.ProtocolJson;
import dev.codexclient.protocol.ThreadItem;

/** The {@code id} every thread item carries, whatever its variant (including ones this SDK does not know). */
public final class ItemIds {
    private ItemIds() {
    }

    public static String of(ThreadItem item) {
        JsonNode tree = ProtocolJson.mapper().valueToTree(item);
        JsonNode id = tree.get("id");
        return id == null || id.isNull() ? null : id.asText();
    }
}
