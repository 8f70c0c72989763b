package dev.codexclient.apicheck;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The public API of one module's compiled classes as text, one line per type and per member, in a stable order: what
 * a user can compile against. For a module with {@code module-info.class}, the types of its exported packages (a
 * qualified export is no public API); for one without, those of every package without a segment {@code internal}.
 * Of those, the public types whose enclosing types are public too (a protected nested type of a class that can be
 * extended counts), and of each, the public members and, where a subclass can see them, the protected ones: generic
 * signatures as the sources spell them, {@code throws} clauses, and the annotations that matter to a user of the API
 * ({@code @Deprecated}, {@code @FunctionalInterface} and the project's own, such as a marker of what follows codex's
 * experimental API). Synthetic and bridge members are left out; so are constant values, which are not signatures.
 *
 * <pre>
 * module dev.codexclient.core
 *   exports dev.codexclient
 *   requires transitive com.fasterxml.jackson.databind
 *
 * public final class dev.codexclient.CodexClient implements java.lang.AutoCloseable
 *   public static dev.codexclient.CodexClientBuilder builder()
 *   public java.util.Optional&lt;java.lang.ProcessHandle&gt; serverProcess()
 * </pre>
 */
final class ApiDump {
    private ApiDump() {
    }

    /** The dump of the classes under {@code classes} (a module's {@code target/classes}). */
    static String dump(Path classes) throws IOException {
        Map<String, ClassApi> types = new TreeMap<>();
        ClassApi.ModuleInfo module = null;
        List<Path> files;
        try (Stream<Path> walk = Files.walk(classes)) {
            files = walk.filter(f -> f.toString().endsWith(".class")).sorted().toList();
        }
        for (Path f : files) {
            ClassApi c = ClassApi.read(Files.readAllBytes(f));
            if ((c.access & ClassApi.MODULE) != 0) {
                module = c.module;
            } else if (!c.name.endsWith("package-info")) {
                types.put(c.name, c);
            }
        }
        StringBuilder out = new StringBuilder();
        Set<String> exported = module == null ? null : Set.copyOf(module.exports());
        if (module != null) {
            out.append("module ").append(module.name()).append('\n');
            module.exports().stream().sorted().forEach(p -> out.append("  exports ").append(dots(p)).append('\n'));
            module.transitiveRequires().stream().sorted()
                    .forEach(r -> out.append("  requires transitive ").append(r).append('\n'));
            out.append('\n');
        }
        for (ClassApi c : types.values()) {
            if (inApi(c, types, exported)) {
                out.append(type(c, types)).append('\n');
            }
        }
        return out.toString();
    }

    /** Whether {@code c} is a type a user of the module can name. */
    private static boolean inApi(ClassApi c, Map<String, ClassApi> types, Set<String> exported) {
        String pkg = c.name.contains("/") ? c.name.substring(0, c.name.lastIndexOf('/')) : "";
        if (exported != null ? !exported.contains(pkg) : List.of(pkg.split("/")).contains("internal")) {
            return false;
        }
        for (ClassApi t = c; t != null; ) {
            ClassApi.Inner self = t.inners.get(t.name);
            if (self == null) {
                return (t.access & ClassApi.PUBLIC) != 0;
            }
            if (self.outer() == null) {
                return false; // a local or anonymous class
            }
            ClassApi outer = types.get(self.outer());
            boolean visible = (self.access() & ClassApi.PUBLIC) != 0
                    || (self.access() & ClassApi.PROTECTED) != 0 && outer != null && extendable(outer);
            if (!visible) {
                return false;
            }
            t = outer;
        }
        return false;
    }

    /** Whether code outside the package can extend {@code c}: what makes its protected members part of the API. */
    private static boolean extendable(ClassApi c) {
        return (c.access & (ClassApi.FINAL | ClassApi.INTERFACE)) == 0 && c.permitted.isEmpty();
    }

    /** The access of {@code c} as its source declares it (a nested type's is in its InnerClasses entry). */
    private static int access(ClassApi c) {
        ClassApi.Inner self = c.inners.get(c.name);
        return self == null ? c.access : self.access() | (c.access & ClassApi.ANNOTATION);
    }

    private static String type(ClassApi c, Map<String, ClassApi> types) {
        StringBuilder b = new StringBuilder();
        int access = access(c);
        b.append(annotations(c.annotations));
        b.append((access & ClassApi.PROTECTED) != 0 ? "protected " : "public ");
        if (c.inners.containsKey(c.name) && (access & ClassApi.STATIC) != 0 && (access & ClassApi.INTERFACE) == 0
                && (c.access & ClassApi.ENUM) == 0 && !"java/lang/Record".equals(c.superName)) {
            b.append("static ");
        }
        String kind;
        boolean isInterface = (access & ClassApi.INTERFACE) != 0;
        if ((access & ClassApi.ANNOTATION) != 0) {
            kind = "@interface";
        } else if (isInterface) {
            kind = "interface";
        } else if ((c.access & ClassApi.ENUM) != 0) {
            kind = "enum";
        } else if ("java/lang/Record".equals(c.superName)) {
            kind = "record";
        } else {
            kind = "class";
            if ((access & ClassApi.ABSTRACT) != 0) {
                b.append("abstract ");
            }
            if ((access & ClassApi.FINAL) != 0) {
                b.append("final ");
            }
        }
        if (!c.permitted.isEmpty()) {
            b.append("sealed ");
        }
        b.append(kind).append(' ').append(dots(c.name));
        if (c.signature != null) {
            Signatures.Cursor s = new Signatures.Cursor(c.signature);
            b.append(Signatures.typeParameters(s));
            String superType = Signatures.referenceType(s);
            List<String> supers = new ArrayList<>();
            while (!s.done()) {
                supers.add(Signatures.referenceType(s));
            }
            header(b, kind, superType, supers);
        } else {
            header(b, kind, c.superName == null ? null : dots(c.superName),
                    c.interfaces.stream().map(ApiDump::dots).toList());
        }
        if (!c.permitted.isEmpty()) {
            b.append(" permits ").append(String.join(", ", c.permitted.stream().map(ApiDump::dots).sorted().toList()));
        }
        b.append('\n');
        boolean protectedVisible = !isInterface && extendable(c);
        // Fields, constructors, methods; each by name, then by its line (the overloads by their parameters).
        List<String[]> fields = new ArrayList<>();
        List<String[]> constructors = new ArrayList<>();
        List<String[]> methods = new ArrayList<>();
        for (ClassApi.Member f : c.fields) {
            if (visible(f, protectedVisible)) {
                fields.add(new String[] {f.name(), field(f)});
            }
        }
        for (ClassApi.Member m : c.methods) {
            if (visible(m, protectedVisible) && (m.access() & ClassApi.BRIDGE) == 0 && !m.name().equals("<clinit>")) {
                (m.name().equals("<init>") ? constructors : methods).add(new String[] {m.name(), method(c, m, isInterface)});
            }
        }
        Comparator<String[]> order = Comparator.<String[], String>comparing(e -> e[0]).thenComparing(e -> e[1]);
        Stream.of(fields, constructors, methods).forEach(list -> list.stream().sorted(order)
                .forEach(e -> b.append("  ").append(e[1]).append('\n')));
        return b.toString();
    }

    private static void header(StringBuilder b, String kind, String superType, List<String> interfaces) {
        boolean implicitSuper = superType == null || superType.equals("java.lang.Object")
                || kind.equals("record") || kind.equals("enum");
        if (!implicitSuper && !kind.equals("interface") && !kind.equals("@interface")) {
            b.append(" extends ").append(superType);
        }
        List<String> shown = interfaces.stream().filter(i -> !kind.equals("@interface")
                || !i.equals("java.lang.annotation.Annotation")).toList();
        if (!shown.isEmpty()) {
            b.append(kind.equals("interface") ? " extends " : " implements ").append(String.join(", ", shown));
        }
    }

    private static boolean visible(ClassApi.Member m, boolean protectedVisible) {
        if ((m.access() & ClassApi.SYNTHETIC) != 0) {
            return false;
        }
        return (m.access() & ClassApi.PUBLIC) != 0 || protectedVisible && (m.access() & ClassApi.PROTECTED) != 0;
    }

    private static String modifiers(int access) {
        StringBuilder b = new StringBuilder((access & ClassApi.PUBLIC) != 0 ? "public " : "protected ");
        if ((access & ClassApi.STATIC) != 0) {
            b.append("static ");
        }
        return b.toString();
    }

    private static String field(ClassApi.Member f) {
        String type = f.signature() != null ? Signatures.javaType(new Signatures.Cursor(f.signature()))
                : Signatures.javaType(new Signatures.Cursor(f.descriptor()));
        if ((f.access() & ClassApi.ENUM) != 0) {
            return annotations(f.annotations()) + "enum constant " + f.name();
        }
        return annotations(f.annotations()) + modifiers(f.access()) + ((f.access() & ClassApi.FINAL) != 0 ? "final " : "")
                + type + " " + f.name();
    }

    private static String method(ClassApi c, ClassApi.Member m, boolean inInterface) {
        StringBuilder b = new StringBuilder(annotations(m.annotations())).append(modifiers(m.access()));
        boolean isStatic = (m.access() & ClassApi.STATIC) != 0;
        if ((m.access() & ClassApi.ABSTRACT) != 0) {
            b.append(inInterface ? "" : "abstract ");
        } else if (inInterface && !isStatic) {
            b.append("default ");
        }
        if ((m.access() & ClassApi.FINAL) != 0) {
            b.append("final ");
        }
        boolean hasSignature = m.signature() != null;
        Signatures.Cursor s = new Signatures.Cursor(hasSignature ? m.signature() : m.descriptor());
        String typeParameters = Signatures.typeParameters(s);
        if (!typeParameters.isEmpty()) {
            b.append(typeParameters).append(' ');
        }
        s.expect('(');
        List<String> parameters = new ArrayList<>();
        while (s.peek() != ')') {
            parameters.add(Signatures.javaType(s));
        }
        s.expect(')');
        String returned = Signatures.javaType(s);
        List<String> thrown = new ArrayList<>();
        while (!s.done() && s.peek() == '^') {
            s.expect('^');
            thrown.add(Signatures.referenceType(s));
        }
        if (thrown.isEmpty()) {
            m.exceptions().forEach(e -> thrown.add(dots(e)));
        }
        if ((m.access() & ClassApi.VARARGS) != 0 && !parameters.isEmpty()) {
            String last = parameters.remove(parameters.size() - 1);
            parameters.add(last.substring(0, last.length() - 2) + "...");
        }
        if (m.name().equals("<init>")) {
            b.append(c.name.substring(Math.max(c.name.lastIndexOf('/'), c.name.lastIndexOf('$')) + 1));
        } else {
            b.append(returned).append(' ').append(m.name());
        }
        b.append('(').append(String.join(", ", parameters)).append(')');
        if (!thrown.isEmpty()) {
            b.append(" throws ").append(String.join(", ", thrown));
        }
        return b.toString();
    }

    /** The annotations that matter to a user, each followed by a space. */
    private static String annotations(List<String> annotations) {
        StringBuilder b = new StringBuilder();
        annotations.stream().filter(ApiDump::matters).sorted().forEach(a -> {
            int paren = a.indexOf('(');
            String type = paren < 0 ? a : a.substring(0, paren);
            b.append('@').append(dots(type.substring(1, type.length() - 1)))
                    .append(paren < 0 ? "" : a.substring(paren)).append(' ');
        });
        return b.toString();
    }

    private static boolean matters(String annotation) {
        return annotation.startsWith("Ljava/lang/Deprecated;") || annotation.startsWith("Ljava/lang/FunctionalInterface;")
                || annotation.startsWith("Ldev/codexclient/");
    }

    static String dots(String internalName) {
        return internalName.replace('/', '.');
    }
}
