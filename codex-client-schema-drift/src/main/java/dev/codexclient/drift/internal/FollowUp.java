package dev.codexclient.drift.internal;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.drift.internal.ClientApiRequirements.Kind;
import dev.codexclient.drift.internal.SchemaDiff.Aspect;
import dev.codexclient.drift.internal.SchemaDiff.Change;
import dev.codexclient.drift.internal.SchemaDiff.Drift;
import dev.codexclient.drift.internal.SchemaDiff.Op;
import dev.codexclient.drift.internal.SchemaDiff.TypeDiff;
import dev.codexclient.protocol.ClientNotificationMethods;
import dev.codexclient.protocol.ClientRequestMethods;
import dev.codexclient.protocol.ServerNotificationMethods;
import dev.codexclient.protocol.ServerRequestMethods;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What following a newer codex takes beyond regenerating: the methods it has that this SDK does not type
 * ({@code --untyped}, reported by CI's stage on npm's latest codex), and what a maintainer must decide before moving
 * the pin to it ({@code --decisions}, printed by {@code schema/regenerate.sh}): methods it removed, and types it
 * reshaped (members, values or variants removed, a member's type or the kind of type changed), which break user
 * code where additions do not.
 */
public final class FollowUp {
    private static final List<Kind> ORDER = List.of(Kind.CLIENT_REQUEST, Kind.SERVER_NOTIFICATION,
            Kind.SERVER_REQUEST, Kind.CLIENT_NOTIFICATION);

    private FollowUp() {
    }

    /** {@return per kind, the methods of {@code schema} that no generated descriptor of this SDK names} */
    public static Map<Kind, List<String>> untyped(ProtocolSchema schema) {
        Map<Kind, List<String>> out = new LinkedHashMap<>();
        for (Kind kind : ORDER) {
            List<String> names = new ArrayList<>();
            for (String method : schema.methods(kind).keySet()) {
                boolean typed = switch (kind) {
                    case CLIENT_REQUEST -> ClientRequestMethods.byMethod(method).isPresent();
                    case SERVER_NOTIFICATION -> ServerNotificationMethods.byMethod(method).isPresent();
                    case SERVER_REQUEST -> ServerRequestMethods.byMethod(method).isPresent();
                    case CLIENT_NOTIFICATION -> ClientNotificationMethods.byMethod(method).isPresent();
                };
                if (!typed) {
                    names.add(method);
                }
            }
            out.put(kind, names);
        }
        return out;
    }

    /** The {@code --untyped} section of the text report. */
    public static String untypedText(Map<Kind, List<String>> untyped, String them) {
        int total = untyped.values().stream().mapToInt(List::size).sum();
        StringBuilder out = new StringBuilder("\nMethods this SDK does not type: ");
        if (total == 0) {
            return out.append("none (everything ").append(them).append(" has is one typed call away)\n").toString();
        }
        out.append(total).append(" (reach them with rpc().call(new MethodDescriptor<>(…)), or follow ").append(them)
                .append(" with schema/regenerate.sh)\n");
        untyped.forEach((kind, names) -> {
            if (!names.isEmpty()) {
                out.append("  ").append(kind.label()).append(": ").append(String.join(", ", names)).append('\n');
            }
        });
        return out.toString();
    }

    /** {@code untyped} as JSON: kind label → methods. */
    public static ObjectNode untypedJson(Map<Kind, List<String>> untyped) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        untyped.forEach((kind, names) -> names.forEach(o.withArray(kind.label())::add));
        return o;
    }

    /** The {@code --decisions} section: what moving the pin to {@code them} removes and reshapes. */
    public static String decisions(Drift drift, String them) {
        StringBuilder out = new StringBuilder("\nTo decide before moving the pin to ").append(them).append(":\n");
        boolean any = false;
        for (Kind kind : ORDER) {
            List<String> removed = drift.methods().get(kind).removed();
            if (!removed.isEmpty()) {
                any = true;
                out.append("  removed ").append(kind.label()).append(removed.size() == 1 ? ": " : "s: ")
                        .append(String.join(", ", removed));
                out.append(kind == Kind.SERVER_REQUEST
                        ? "\n    (kept typed and answered: schema/regenerate.sh retains removed server requests)\n"
                        : "\n    (dropped from the SDK unless retained: schema/regenerate.sh lists the --method option)\n");
            }
        }
        List<String> reshaped = new ArrayList<>();
        for (TypeDiff t : drift.typesChanged()) {
            List<String> breaks = new ArrayList<>();
            for (Change c : t.changes()) {
                if (c.aspect() == Aspect.KIND) {
                    breaks.add("kind " + c.from() + " -> " + c.to());
                } else if (c.op() == Op.REMOVED) {
                    breaks.add("-" + c.aspect().label() + " " + c.name());
                } else if (c.op() == Op.CHANGED && c.aspect() == Aspect.FIELD) {
                    breaks.add("~field " + c.name() + ": " + c.from() + " -> " + c.to());
                }
            }
            if (!breaks.isEmpty()) {
                reshaped.add("    " + t.name() + (drift.clientApiTypes().contains(t.name()) ? " (the client API reads"
                        + " or sends it)" : "") + ": " + String.join(", ", breaks));
            }
        }
        if (!reshaped.isEmpty()) {
            any = true;
            out.append("  reshaped types (a member, value or variant removed, or a type changed): ")
                    .append(reshaped.size()).append('\n');
            reshaped.forEach(line -> out.append(line).append('\n'));
            out.append("    (an older server's value of such a type still decodes, as Unrecognized or with null"
                    + " members; list each in CHANGELOG.md with its migration)\n");
        }
        if (!drift.typesRemoved().isEmpty()) {
            any = true;
            out.append("  removed types: ").append(String.join(", ", drift.typesRemoved())).append('\n');
        }
        if (!any) {
            out.append("  nothing removed or reshaped: additions only\n");
        }
        return out.toString();
    }
}
