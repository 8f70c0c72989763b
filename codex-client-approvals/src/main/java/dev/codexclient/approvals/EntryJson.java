package dev.codexclient.approvals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * An entry as JSON, and back: the form the JDBC store keeps and the REST API shows. Written by hand, field by field,
 * so that it reads the same on every Jackson version and needs no module for {@code Optional} or {@code Instant}
 * (times are ISO-8601 strings). A field of a newer version is ignored when read.
 */
public final class EntryJson {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private EntryJson() {
    }

    /**
     * {@return {@code entry} as a JSON object}
     *
     * @param entry the entry
     */
    public static ObjectNode toJson(InboxEntry entry) {
        ObjectNode o = F.objectNode();
        o.put("id", entry.id());
        o.put("kind", entry.kind().name());
        o.put("method", entry.kind().method());
        o.put("requestKey", entry.requestKey());
        o.put("threadId", entry.threadId());
        entry.turnId().ifPresent(t -> o.put("turnId", t));
        entry.itemId().ifPresent(t -> o.put("itemId", t));
        o.set("request", entry.request());
        entry.item().ifPresent(i -> o.set("item", i));
        ArrayNode offered = o.putArray("offered");
        entry.offered().forEach(d -> offered.add(d.wireName()));
        o.put("state", entry.state().name());
        o.put("requestedAt", entry.requestedAt().toString());
        o.put("expiresAt", entry.expiresAt().toString());
        entry.decision().ifPresent(d -> o.put("decision", d.wireName()));
        entry.decidedBy().ifPresent(d -> o.put("decidedBy", d));
        entry.endedAt().ifPresent(d -> o.put("endedAt", d.toString()));
        entry.endReason().ifPresent(d -> o.put("endReason", d));
        entry.holder().ifPresent(d -> o.put("holder", d));
        o.put("sent", entry.sent());
        ArrayNode history = o.putArray("history");
        for (EntryEvent e : entry.history()) {
            ObjectNode h = history.addObject();
            h.put("at", e.at().toString());
            h.put("what", e.what());
            e.by().ifPresent(b -> h.put("by", b));
            h.put("detail", e.detail());
        }
        o.put("version", entry.version());
        return o;
    }

    /**
     * {@return the entry {@code json} describes}
     *
     * @param json an object {@link #toJson} wrote
     * @throws IllegalArgumentException when a field is missing or of another shape
     */
    public static InboxEntry fromJson(JsonNode json) {
        try {
            List<InboxDecision> offered = new ArrayList<>();
            for (JsonNode d : json.path("offered")) {
                InboxDecision.named(d.asText()).ifPresent(offered::add);
            }
            List<EntryEvent> history = new ArrayList<>();
            for (JsonNode h : json.path("history")) {
                history.add(new EntryEvent(Instant.parse(h.get("at").asText()), h.get("what").asText(),
                        text(h, "by"), h.path("detail").asText("")));
            }
            return new InboxEntry(json.get("id").asText(), ApprovalKind.valueOf(json.get("kind").asText()),
                    json.get("requestKey").asText(), json.get("threadId").asText(), text(json, "turnId"),
                    text(json, "itemId"), json.get("request"), Optional.ofNullable(json.get("item")), offered,
                    EntryState.valueOf(json.get("state").asText()), Instant.parse(json.get("requestedAt").asText()),
                    Instant.parse(json.get("expiresAt").asText()),
                    text(json, "decision").flatMap(InboxDecision::named), text(json, "decidedBy"),
                    text(json, "endedAt").map(Instant::parse), text(json, "endReason"), text(json, "holder"),
                    json.path("sent").asBoolean(false), history, json.get("version").asLong());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not an inbox entry: " + e.getMessage(), e);
        }
    }

    /**
     * {@return the entry the JSON text describes}
     *
     * @param mapper a mapper to read the text with
     * @param text   what {@link #toJson} wrote, as text
     */
    public static InboxEntry fromText(ObjectMapper mapper, String text) {
        try {
            return fromJson(mapper.readTree(text));
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("not an inbox entry: " + e.getMessage(), e);
        }
    }

    private static Optional<String> text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || v.isNull() ? Optional.empty() : Optional.of(v.asText());
    }
}
