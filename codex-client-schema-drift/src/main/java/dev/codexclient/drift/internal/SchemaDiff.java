package dev.codexclient.drift.internal;

import dev.codexclient.drift.internal.ClientApiRequirements.Kind;
import dev.codexclient.drift.internal.ClientApiRequirements.Requirement;
import dev.codexclient.drift.internal.ProtocolSchema.Field;
import dev.codexclient.drift.internal.ProtocolSchema.TypeShape;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Compares the schema this SDK was generated from with another codex's: methods, notifications and server
 * requests, types, fields, enum values and union variants, each added (only in the other codex), removed (only in
 * the SDK's) or changed; and which of the methods the client API relies on the other codex lacks.
 */
public final class SchemaDiff {
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_/]*");

    /** Relative to the SDK's schema: only in the other codex, only in the SDK's, or in both but different. */
    public enum Op {
        /** Only in the other codex. */
        ADDED("+"),
        /** Only in the SDK's schema. */
        REMOVED("-"),
        /** In both, different. */
        CHANGED("~");

        private final String sign;

        Op(String sign) {
            this.sign = sign;
        }

        /** {@code +}, {@code -} or {@code ~}. */
        public String sign() {
            return sign;
        }
    }

    /** What part of a method or type changed. */
    public enum Aspect {
        /** A method's params. */
        PARAMS,
        /** A field of an object or of a union variant ({@code variant.field}). */
        FIELD,
        /** An enum value (or a plain string alternative of a union). */
        VALUE,
        /** A variant of a tagged union. */
        VARIANT,
        /** Another alternative of a union. */
        ALTERNATIVE,
        /** The kind of type (object, enum, union, other). */
        KIND,
        /** The definition of a type that is none of the above. */
        SHAPE;

        /** The lower-case name the reports use. */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * One difference.
     *
     * @param op     added, removed or changed
     * @param aspect what changed
     * @param name   the method, field ({@code variant.field} in a union), value or variant
     * @param from   the SDK schema's side of a method's params or a field ({@code ""} otherwise, and when added)
     * @param to     the other codex's side of a method's params or a field ({@code ""} otherwise, and when removed)
     */
    public record Change(Op op, Aspect aspect, String name, String from, String to) {
    }

    /**
     * The differences of one kind of method.
     *
     * @param added   only in the other codex
     * @param removed only in the SDK's schema
     * @param changed in both, with different params
     */
    public record MethodDiff(List<String> added, List<String> removed, List<Change> changed) {
        /** True when nothing differs. */
        public boolean isEmpty() {
            return added.isEmpty() && removed.isEmpty() && changed.isEmpty();
        }
    }

    /**
     * The differences of one type present in both schemas.
     *
     * @param name    the type's name
     * @param changes what differs, fields first
     */
    public record TypeDiff(String name, List<Change> changes) {
    }

    /**
     * The whole comparison.
     *
     * @param methods        per kind of method
     * @param typesAdded     types only in the other codex
     * @param typesRemoved   types only in the SDK's schema
     * @param typesChanged   types in both that differ
     * @param clientApiTypes the SDK schema's types the client API sends or reads (reachable from the params and
     *                       results of the methods it relies on)
     * @param missing        the methods the client API relies on that the other codex lacks
     */
    public record Drift(Map<Kind, MethodDiff> methods, List<String> typesAdded, List<String> typesRemoved,
                        List<TypeDiff> typesChanged, Set<String> clientApiTypes, List<Requirement> missing) {
        /** True when the other codex offers everything the client API relies on. */
        public boolean compatible() {
            return missing.isEmpty();
        }

        /** True when the two schemas describe the same protocol. */
        public boolean isEmpty() {
            return methods.values().stream().allMatch(MethodDiff::isEmpty) && typesAdded.isEmpty()
                    && typesRemoved.isEmpty() && typesChanged.isEmpty();
        }
    }

    private SchemaDiff() {
    }

    /**
     * Compares {@code other} with the SDK's schema.
     *
     * @param requirements what the client API relies on (see {@link ClientApiRequirements#all()})
     */
    public static Drift compare(ProtocolSchema sdk, ProtocolSchema other, Collection<Requirement> requirements) {
        Map<Kind, MethodDiff> methods = new EnumMap<>(Kind.class);
        for (Kind kind : Kind.values()) {
            methods.put(kind, methods(sdk.methods(kind), other.methods(kind)));
        }
        Map<String, TypeShape> a = sdk.types();
        Map<String, TypeShape> b = other.types();
        List<TypeDiff> changed = new ArrayList<>();
        for (String name : new TreeSet<>(a.keySet())) {
            if (b.containsKey(name)) {
                List<Change> changes = type(a.get(name), b.get(name));
                if (!changes.isEmpty()) {
                    changed.add(new TypeDiff(name, List.copyOf(changes)));
                }
            }
        }
        List<Requirement> missing = new ArrayList<>();
        for (Requirement r : requirements) {
            if (!other.methods(r.kind()).containsKey(r.method())) {
                missing.add(r);
            }
        }
        return new Drift(methods, onlyIn(b.keySet(), a.keySet()), onlyIn(a.keySet(), b.keySet()),
                List.copyOf(changed), clientApiTypes(sdk, requirements), List.copyOf(missing));
    }

    private static MethodDiff methods(Map<String, String> sdk, Map<String, String> other) {
        List<Change> changed = new ArrayList<>();
        for (Map.Entry<String, String> e : sdk.entrySet()) {
            String theirs = other.get(e.getKey());
            if (theirs != null && !theirs.equals(e.getValue())) {
                changed.add(new Change(Op.CHANGED, Aspect.PARAMS, e.getKey(), e.getValue(), theirs));
            }
        }
        return new MethodDiff(onlyIn(other.keySet(), sdk.keySet()), onlyIn(sdk.keySet(), other.keySet()),
                List.copyOf(changed));
    }

    private static List<Change> type(TypeShape a, TypeShape b) {
        List<Change> out = new ArrayList<>();
        if (!a.kind().equals(b.kind())) {
            out.add(new Change(Op.CHANGED, Aspect.KIND, "", a.kind(), b.kind()));
        }
        fields("", a.fields(), b.fields(), out);
        names(Aspect.VALUE, a.values(), b.values(), out);
        names(Aspect.VARIANT, a.variants().keySet(), b.variants().keySet(), out);
        for (Map.Entry<String, Map<String, Field>> v : a.variants().entrySet()) {
            Map<String, Field> theirs = b.variants().get(v.getKey());
            if (theirs != null) {
                fields(v.getKey() + ".", v.getValue(), theirs, out);
            }
        }
        names(Aspect.ALTERNATIVE, a.alternatives(), b.alternatives(), out);
        if (a.kind().equals(b.kind()) && !a.shape().equals(b.shape())) {
            out.add(new Change(Op.CHANGED, Aspect.SHAPE, "", a.shape(), b.shape()));
        }
        return out;
    }

    private static void fields(String prefix, Map<String, Field> a, Map<String, Field> b, List<Change> out) {
        for (Map.Entry<String, Field> e : a.entrySet()) {
            Field theirs = b.get(e.getKey());
            if (theirs == null) {
                out.add(new Change(Op.REMOVED, Aspect.FIELD, prefix + e.getKey(), e.getValue().describe(), ""));
            } else if (!theirs.equals(e.getValue())) {
                out.add(new Change(Op.CHANGED, Aspect.FIELD, prefix + e.getKey(), e.getValue().describe(),
                        theirs.describe()));
            }
        }
        for (Map.Entry<String, Field> e : b.entrySet()) {
            if (!a.containsKey(e.getKey())) {
                out.add(new Change(Op.ADDED, Aspect.FIELD, prefix + e.getKey(), "", e.getValue().describe()));
            }
        }
    }

    private static void names(Aspect aspect, Set<String> a, Set<String> b, List<Change> out) {
        for (String name : a) {
            if (!b.contains(name)) {
                out.add(new Change(Op.REMOVED, aspect, name, "", ""));
            }
        }
        for (String name : b) {
            if (!a.contains(name)) {
                out.add(new Change(Op.ADDED, aspect, name, "", ""));
            }
        }
    }

    private static List<String> onlyIn(Set<String> these, Set<String> notThese) {
        List<String> out = new ArrayList<>();
        for (String name : new TreeSet<>(these)) {
            if (!notThese.contains(name)) {
                out.add(name);
            }
        }
        return List.copyOf(out);
    }

    /** The params of each required method, their results ({@code XResponse} beside {@code XParams}), and all they reach. */
    private static Set<String> clientApiTypes(ProtocolSchema sdk, Collection<Requirement> requirements) {
        Set<String> roots = new LinkedHashSet<>();
        for (Requirement r : requirements) {
            String params = sdk.methods(r.kind()).get(r.method());
            if (params == null) {
                continue;
            }
            Matcher m = NAME.matcher(params);
            while (m.find()) {
                String name = m.group();
                if (sdk.types().containsKey(name)) {
                    roots.add(name);
                    if (name.endsWith("Params")) {
                        roots.add(name.substring(0, name.length() - "Params".length()) + "Response");
                    }
                }
            }
        }
        return Set.copyOf(sdk.reachableFrom(roots));
    }
}
