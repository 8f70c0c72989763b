package dev.codexclient.generator;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The Java names of the generated top-level types: the schema's definition names, except where
 * {@code typeNames} in the overrides renames one, checked against everything a user's code also sees.
 *
 * <p>Why the check: a protocol type named like a {@code java.lang} type ({@code Thread}) is ambiguous in every
 * file that imports {@code dev.codexclient.protocol.*}, and {@code java.lang} is imported implicitly, so such a
 * name would make users spell the package out wherever they touch the type. The same holds for
 * {@code java.util}, the other package user code commonly imports whole. Nested types (variants) are always
 * written with their union's name in front and are not checked.
 */
final class Naming {
    /** Hand-written classes of the protocol package, and the names of the generated binders' support. */
    static final Set<String> RUNTIME = Set.of("Experimental", "MethodDescriptor", "NotificationDescriptor",
            "ParamsPresence", "ProtocolJson", "RequestId", "Tristate", "UnknownMembers", "BindingSupport",
            "JacksonVersion", "ClientRequestApi", "ClientRequestDescriptors", "ProtocolBinders");

    /** Packages whose simple names a generated type must not take. */
    static final String[] STAR_IMPORTED = {"java.lang", "java.util"};

    private final Map<String, String> javaNames = new TreeMap<>();

    /**
     * @param schemaNames the definitions that become generated types
     * @param renames     the {@code typeNames} override
     * @param handwritten definitions implemented by hand (kept under their schema name)
     */
    Naming(Set<String> schemaNames, Map<String, String> renames, Set<String> handwritten) {
        for (Map.Entry<String, String> e : renames.entrySet()) {
            if (!schemaNames.contains(e.getKey())) {
                throw new GeneratorException("typeNames override renames " + e.getKey()
                        + ", which is not a generated definition of the schema");
            }
        }
        Map<String, String> taken = new TreeMap<>();
        for (String h : handwritten) {
            taken.put(h, h);
        }
        for (String s : new TreeSet<>(schemaNames)) {
            String j = renames.getOrDefault(s, s);
            String clash = javaLangOrUtil(j);
            if (clash != null) {
                throw new GeneratorException("definition " + s + " would become the Java type " + j
                        + ", which has the simple name of " + clash + ": code that imports dev.codexclient.protocol.*"
                        + " could not use it without the package; rename it with a typeNames entry in"
                        + " codegen-overrides.json (for example \"" + s + "\": \"" + s + "Info\")");
            }
            if (RUNTIME.contains(j)) {
                throw new GeneratorException("definition " + s + " would become the Java type " + j
                        + ", a hand-written class of the protocol package; rename it with a typeNames entry");
            }
            String prev = taken.put(j, s);
            if (prev != null) {
                throw new GeneratorException("definitions " + prev + " and " + s + " would both become the Java type "
                        + j + "; rename one with a typeNames entry in codegen-overrides.json");
            }
            javaNames.put(s, j);
        }
        for (String j : javaNames.values()) {
            if (j.endsWith("Json") && taken.containsKey(j.substring(0, j.length() - 4))) {
                throw new GeneratorException("the Java type " + j + " collides with the binder of "
                        + j.substring(0, j.length() - 4));
            }
        }
    }

    /** The Java name of a definition; definitions that are not generated keep their schema name. */
    String java(String schemaName) {
        return javaNames.getOrDefault(schemaName, schemaName);
    }

    /** The binder class of a generated type. */
    String binder(String schemaName) {
        return java(schemaName) + "Json";
    }

    /** The fully qualified name of the {@code java.lang} or {@code java.util} type named {@code simple}, or null. */
    static String javaLangOrUtil(String simple) {
        for (String pkg : STAR_IMPORTED) {
            try {
                Class<?> c = Class.forName(pkg + "." + simple, false, Naming.class.getClassLoader());
                if (java.lang.reflect.Modifier.isPublic(c.getModifiers())) {
                    return c.getName();
                }
            } catch (ClassNotFoundException | LinkageError e) {
                // not a name of that package
            }
        }
        return null;
    }
}
