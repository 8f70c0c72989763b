package dev.codexclient.drift.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.drift.internal.ClientApiRequirements.Kind;
import dev.codexclient.drift.internal.ClientApiRequirements.Requirement;
import dev.codexclient.drift.internal.SchemaDiff.Aspect;
import dev.codexclient.drift.internal.SchemaDiff.Change;
import dev.codexclient.drift.internal.SchemaDiff.Drift;
import dev.codexclient.drift.internal.SchemaDiff.MethodDiff;
import dev.codexclient.drift.internal.SchemaDiff.TypeDiff;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Renders a {@link Drift} for people (a summary that leads with what breaks the client API) and for machines
 * (JSON with every difference).
 */
public final class DriftReport {
    private static final int WIDTH = 110;
    /**
     * Without {@code details}, how many of the other changed types and type names the text lists (all of those the
     * client API uses are listed, one line each).
     */
    private static final int SHOWN_TYPES = 25;
    private static final int SHOWN_NAMES = 40;
    private static final Map<Kind, String> HEADINGS = Map.of(
            Kind.CLIENT_REQUEST, "Client requests",
            Kind.SERVER_NOTIFICATION, "Notifications",
            Kind.SERVER_REQUEST, "Server requests",
            Kind.CLIENT_NOTIFICATION, "Client notifications");
    private static final List<Kind> ORDER = List.of(Kind.CLIENT_REQUEST, Kind.SERVER_NOTIFICATION,
            Kind.SERVER_REQUEST, Kind.CLIENT_NOTIFICATION);

    /**
     * What was compared with the SDK's schema.
     *
     * @param name    how to call it in the report, e.g. {@code codex 0.98.0}
     * @param version its codex version, or {@code ""} when unknown
     * @param source  where the schema came from (the executable, or the schema file)
     */
    public record Subject(String name, String version, String source) {
    }

    private DriftReport() {
    }

    /**
     * The report for people.
     *
     * @param sdkVersion the codex version the SDK was generated from
     * @param details    list every difference of every type, not one line per type
     */
    public static String text(Drift drift, String sdkVersion, Subject other, boolean details) {
        StringBuilder out = new StringBuilder();
        String them = other.name();
        out.append("Protocol drift: ").append(them).append(" (").append(other.source()).append(")\n")
                .append("      against: codex ").append(sdkVersion)
                .append(", the schema this SDK was generated from\n\n");
        if (drift.compatible()) {
            out.append("OK: ").append(them).append(" offers every method the client API relies on.\n");
        } else {
            out.append("INCOMPATIBLE: ").append(them).append(" lacks ").append(drift.missing().size())
                    .append(drift.missing().size() == 1 ? " method" : " methods")
                    .append(" the client API relies on:\n");
            int width = drift.missing().stream().mapToInt(r -> r.method().length()).max().orElse(0);
            for (Requirement r : drift.missing()) {
                out.append(String.format("    %-19s %-" + width + "s  %s%n", r.kind().label(), r.method(),
                        String.join(", ", r.usedBy())));
            }
            out.append("  Calls of missing methods fail with CodexMethodNotSupportedException; handlers and listeners\n")
                    .append("  for what it never sends are never called.\n");
        }
        if (drift.isEmpty()) {
            out.append("\nNo differences: ").append(them).append(" publishes the protocol this SDK was generated from.\n");
            return out.toString();
        }
        for (Kind kind : ORDER) {
            methods(out, HEADINGS.get(kind), drift.methods().get(kind), them);
        }
        types(out, drift, them, details);
        out.append("\n(- only in the SDK's schema, + only in ").append(them).append(", ~ different");
        out.append(details ? ")\n" : "; --details lists every field, value and variant)\n");
        return out.toString();
    }

    private static void methods(StringBuilder out, String heading, MethodDiff d, String them) {
        out.append('\n').append(heading).append(": ");
        if (d.isEmpty()) {
            out.append("no differences\n");
            return;
        }
        out.append(counts(d.removed().size(), "missing from " + them, d.added().size(), "only in " + them,
                d.changed().size(), "with other params")).append('\n');
        names(out, "-", d.removed(), Integer.MAX_VALUE);
        names(out, "+", d.added(), Integer.MAX_VALUE);
        for (Change c : d.changed()) {
            out.append("  ~ ").append(c.name()).append(": params ").append(show(c.from())).append(" -> ")
                    .append(show(c.to())).append('\n');
        }
    }

    private static void types(StringBuilder out, Drift drift, String them, boolean details) {
        List<TypeDiff> used = new ArrayList<>();
        List<TypeDiff> others = new ArrayList<>();
        for (TypeDiff t : drift.typesChanged()) {
            (drift.clientApiTypes().contains(t.name()) ? used : others).add(t);
        }
        List<String> usedRemoved = new ArrayList<>();
        List<String> otherRemoved = new ArrayList<>();
        for (String name : drift.typesRemoved()) {
            (drift.clientApiTypes().contains(name) ? usedRemoved : otherRemoved).add(name);
        }
        out.append("\nTypes the client API sends or reads: ");
        if (used.isEmpty() && usedRemoved.isEmpty()) {
            out.append("no differences\n");
        } else {
            out.append(counts(used.size(), "changed", usedRemoved.size(), "missing from " + them, 0, "")).append('\n');
            for (TypeDiff t : used) {
                if (details) {
                    detailed(out, t);
                } else {
                    out.append("  ~ ").append(t.name()).append(": ").append(summary(t)).append('\n');
                }
            }
            names(out, "-", usedRemoved, Integer.MAX_VALUE);
        }
        out.append("\nOther types: ");
        if (others.isEmpty() && otherRemoved.isEmpty() && drift.typesAdded().isEmpty()) {
            out.append("no differences\n");
            return;
        }
        out.append(counts(others.size(), "changed", otherRemoved.size(), "missing from " + them,
                drift.typesAdded().size(), "only in " + them)).append('\n');
        int shown = details ? Integer.MAX_VALUE : SHOWN_TYPES;
        for (int i = 0; i < others.size() && i < shown; i++) {
            if (details) {
                detailed(out, others.get(i));
            } else {
                out.append("  ~ ").append(others.get(i).name()).append(": ").append(summary(others.get(i)))
                        .append('\n');
            }
        }
        if (others.size() > shown) {
            out.append("    ... and ").append(others.size() - shown).append(" more changed types (--details lists all)\n");
        }
        names(out, "-", otherRemoved, details ? Integer.MAX_VALUE : SHOWN_NAMES);
        names(out, "+", drift.typesAdded(), details ? Integer.MAX_VALUE : SHOWN_NAMES);
    }

    private static void detailed(StringBuilder out, TypeDiff t) {
        out.append("  ~ ").append(t.name()).append('\n');
        for (Change c : t.changes()) {
            out.append("      ").append(c.op().sign()).append(' ').append(c.aspect().label());
            if (!c.name().isEmpty()) {
                out.append(' ').append(c.name());
            }
            switch (c.op()) {
                case ADDED -> {
                    if (c.aspect() == Aspect.FIELD) {
                        out.append(": ").append(c.to());
                    }
                }
                case REMOVED -> {
                    if (c.aspect() == Aspect.FIELD) {
                        out.append(": ").append(c.from());
                    }
                }
                case CHANGED -> out.append(": ").append(c.from()).append(" -> ").append(c.to());
            }
            out.append('\n');
        }
    }

    /** {@code +2 fields, -1 value, ~1 field}. */
    private static String summary(TypeDiff t) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (Change c : t.changes()) {
            counts.merge(c.op().sign() + "|" + c.aspect().label(), 1, Integer::sum);
        }
        List<String> parts = new ArrayList<>();
        counts.forEach((k, n) -> {
            String[] p = k.split("\\|");
            parts.add(p[0] + n + " " + p[1] + (n == 1 ? "" : "s"));
        });
        return String.join(", ", parts);
    }

    private static String counts(int a, String aLabel, int b, String bLabel, int c, String cLabel) {
        List<String> parts = new ArrayList<>();
        if (a > 0) {
            parts.add(a + " " + aLabel);
        }
        if (b > 0) {
            parts.add(b + " " + bLabel);
        }
        if (c > 0) {
            parts.add(c + " " + cLabel);
        }
        return String.join(", ", parts);
    }

    /** A wrapped list of names, each line starting with {@code sign}. */
    private static void names(StringBuilder out, String sign, List<String> names, int limit) {
        if (names.isEmpty()) {
            return;
        }
        StringBuilder line = new StringBuilder("  " + sign + " ");
        int shown = Math.min(limit, names.size());
        for (int i = 0; i < shown; i++) {
            String item = names.get(i) + (i < shown - 1 ? "," : "");
            if (line.length() + item.length() + 1 > WIDTH && line.length() > 4) {
                out.append(line.toString().stripTrailing()).append('\n');
                line = new StringBuilder("    ");
            }
            line.append(item).append(' ');
        }
        if (shown < names.size()) {
            line.append("... and ").append(names.size() - shown).append(" more (--details lists all)");
        }
        out.append(line.toString().stripTrailing()).append('\n');
    }

    private static String show(String params) {
        return params.isEmpty() ? "(none)" : params;
    }

    /** The report for machines: every difference, nothing summarised. */
    public static ObjectNode json(Drift drift, String sdkVersion, Subject other) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode root = f.objectNode();
        root.putObject("sdk").put("codexVersion", sdkVersion);
        ObjectNode subject = root.putObject("compared");
        subject.put("name", other.name());
        if (other.version().isEmpty()) {
            subject.putNull("codexVersion");
        } else {
            subject.put("codexVersion", other.version());
        }
        subject.put("source", other.source());
        root.put("compatible", drift.compatible());
        root.put("identical", drift.isEmpty());
        ArrayNode missing = root.putArray("missing");
        for (Requirement r : drift.missing()) {
            ObjectNode m = missing.addObject();
            m.put("kind", switch (r.kind()) {
                case CLIENT_REQUEST -> "clientRequest";
                case CLIENT_NOTIFICATION -> "clientNotification";
                case SERVER_NOTIFICATION -> "serverNotification";
                case SERVER_REQUEST -> "serverRequest";
            });
            m.put("method", r.method());
            ArrayNode usedBy = m.putArray("usedBy");
            r.usedBy().forEach(usedBy::add);
        }
        ObjectNode methods = root.putObject("methods");
        for (Kind kind : ORDER) {
            MethodDiff d = drift.methods().get(kind);
            ObjectNode k = methods.putObject(json(kind));
            strings(k.putArray("removed"), d.removed());
            strings(k.putArray("added"), d.added());
            ArrayNode changed = k.putArray("changed");
            for (Change c : d.changed()) {
                changed.addObject().put("method", c.name()).put("paramsFrom", c.from()).put("paramsTo", c.to());
            }
        }
        ObjectNode types = root.putObject("types");
        strings(types.putArray("removed"), drift.typesRemoved());
        strings(types.putArray("added"), drift.typesAdded());
        ArrayNode changed = types.putArray("changed");
        for (TypeDiff t : drift.typesChanged()) {
            ObjectNode type = changed.addObject();
            type.put("name", t.name());
            type.put("usedByClientApi", drift.clientApiTypes().contains(t.name()));
            ArrayNode changes = type.putArray("changes");
            for (Change c : t.changes()) {
                ObjectNode change = changes.addObject();
                change.put("op", c.op().name().toLowerCase(java.util.Locale.ROOT));
                change.put("aspect", c.aspect().label());
                change.put("name", c.name());
                if (!c.from().isEmpty()) {
                    change.put("from", c.from());
                }
                if (!c.to().isEmpty()) {
                    change.put("to", c.to());
                }
            }
        }
        ArrayNode usedRemoved = types.putArray("removedUsedByClientApi");
        drift.typesRemoved().stream().filter(drift.clientApiTypes()::contains).forEach(usedRemoved::add);
        return root;
    }

    private static String json(Kind kind) {
        return switch (kind) {
            case CLIENT_REQUEST -> "clientRequests";
            case CLIENT_NOTIFICATION -> "clientNotifications";
            case SERVER_NOTIFICATION -> "serverNotifications";
            case SERVER_REQUEST -> "serverRequests";
        };
    }

    private static void strings(ArrayNode array, List<String> values) {
        values.forEach(array::add);
    }
}
