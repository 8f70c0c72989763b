package dev.codexclient.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The members of a JSON object that the schema of this SDK version does not declare, kept as they were read so
 * that a value decoded from a newer codex and written again (by a proxy, a recorder, a store) loses nothing.
 *
 * <p>Every generated record ends with an {@code unknownMembers} component. It is {@link #none()} for values built
 * in code and for everything the pinned schema fully describes; decoding allocates nothing for it then. The
 * members are written back after the declared ones, in the order they were read.
 *
 * <pre>{@code
 * ThreadStartParams p = ProtocolJson.mapper().readValue(json, ThreadStartParams.class);
 * if (!p.unknownMembers().isEmpty()) {
 *     log.info("newer server fields: {}", p.unknownMembers().names());
 * }
 * }</pre>
 *
 * <p>{@link #toString()} prints names and the shape of each value (its JSON type and size), never the values:
 * whatever a server sends may hold secrets, and records print this in their own {@code toString()}.
 */
public final class UnknownMembers {
    private static final UnknownMembers NONE = new UnknownMembers(Map.of());

    private final Map<String, JsonNode> members;

    private UnknownMembers(Map<String, JsonNode> members) {
        this.members = members;
    }

    /**
     * No unknown members.
     *
     * @return the shared empty instance
     */
    public static UnknownMembers none() {
        return NONE;
    }

    /**
     * Unknown members as read; {@code null} or an empty map give {@link #none()}. The map is copied.
     *
     * @param members member name to value, in wire order
     * @return the members
     */
    public static UnknownMembers of(Map<String, JsonNode> members) {
        if (members == null || members.isEmpty()) {
            return NONE;
        }
        Map<String, JsonNode> copy = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : members.entrySet()) {
            copy.put(Objects.requireNonNull(e.getKey(), "member name"), Objects.requireNonNull(e.getValue(),
                    "member value (use NullNode for JSON null)"));
        }
        return new UnknownMembers(Collections.unmodifiableMap(copy));
    }

    /**
     * Whether there are none.
     *
     * @return true when the object had only declared members
     */
    public boolean isEmpty() {
        return members.isEmpty();
    }

    /**
     * The member names, in wire order.
     *
     * @return a read-only set
     */
    public Set<String> names() {
        return members.keySet();
    }

    /**
     * A copy of one member's value.
     *
     * @param name the member name
     * @return the value (a copy, so the kept value cannot change), or null when there is no such member
     */
    public JsonNode get(String name) {
        JsonNode n = members.get(name);
        return n == null ? null : n.deepCopy();
    }

    /**
     * A read-only view of the members. Its values are the kept nodes themselves: read them, do not modify them
     * ({@link #get(String)} gives a copy).
     *
     * @return member name to value, in wire order
     */
    public Map<String, JsonNode> asMap() {
        return members;
    }

    /**
     * Equal when the members are.
     *
     * @param o the other object
     * @return whether equal
     */
    @Override
    public boolean equals(Object o) {
        return o == this || (o instanceof UnknownMembers u && members.equals(u.members));
    }

    /**
     * The hash of the members.
     *
     * @return the hash
     */
    @Override
    public int hashCode() {
        return members.hashCode();
    }

    /**
     * Names and shapes, not values: {@code {color=string(5), limits=object[max, min]}}.
     *
     * @return the text
     */
    @Override
    public String toString() {
        if (members.isEmpty()) {
            return "{}";
        }
        StringBuilder sb = new StringBuilder("{");
        for (Map.Entry<String, JsonNode> e : members.entrySet()) {
            if (sb.length() > 1) {
                sb.append(", ");
            }
            sb.append(e.getKey()).append('=').append(BindingSupport.shape(e.getValue()));
        }
        return sb.append('}').toString();
    }
}
