import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The declarations of Java sources, as far as tests need them: types (nesting, supertypes, annotations) and their
 * methods (annotations, modifiers). A tolerant reader, not a compiler: it skips method bodies and initializers
 * whole, so nothing inside them (local and anonymous classes) is a declaration; javac has checked the syntax.
 * Kotlin test sources ({@code .kt}) are read as far as JUnit needs them too: classes (nested ones included), their
 * annotations, and their functions with theirs ({@link KotlinParser}).
 */
final class JavaTestSources {
    static final String TAG = "real-codex";
    private static final Set<String> TEST_ANNOTATIONS =
            Set.of("Test", "ParameterizedTest", "RepeatedTest", "TestFactory", "TestTemplate");

    final List<Type> types = new ArrayList<>();
    final Map<String, Type> byName = new LinkedHashMap<>();
    /** Annotation types that stand for a test annotation or for the real-codex tag (composed annotations). */
    final Set<String> testAnnotations = new LinkedHashSet<>(TEST_ANNOTATIONS);
    final Set<String> realCodexAnnotations = new LinkedHashSet<>();

    /** What the sources say that the scan cannot read with certainty: questions for a person, never guesses. */
    final Set<String> problems = new LinkedHashSet<>();
    private final Set<Path> scanned = new LinkedHashSet<>();

    void addSources(Path dir, boolean tests) throws IOException {
        // Two modules may compile one directory of tests (e.g. the same tests against two framework versions).
        if (!Files.isDirectory(dir) || !scanned.add(dir)) {
            return;
        }
        List<Path> files;
        try (Stream<Path> walk = Files.walk(dir)) {
            files = walk.filter(f -> f.toString().endsWith(".java") || tests && f.toString().endsWith(".kt"))
                    .sorted().toList();
        }
        for (Path file : files) {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            if (file.toString().endsWith(".kt")) {
                new KotlinParser(new Parser(file, tokens(text), true)).unit();
                continue;
            }
            // Main sources only matter for the annotation types they declare.
            if (tests || text.contains("@interface")) {
                new Parser(file, tokens(text), tests).compilationUnit();
            }
        }
    }

    /** Composed annotations: an annotation type annotated with a test annotation or the tag stands for it. */
    void resolveAnnotations() {
        boolean changed = true;
        while (changed) {
            changed = false;
            for (Type t : types) {
                if (!t.kind.equals("@interface")) {
                    continue;
                }
                if (!testAnnotations.contains(t.simpleName) && t.annotations.stream()
                        .anyMatch(a -> testAnnotations.contains(a.name))) {
                    changed |= testAnnotations.add(t.simpleName);
                }
                if (!realCodexAnnotations.contains(t.simpleName) && tagged(t.annotations)) {
                    changed |= realCodexAnnotations.add(t.simpleName);
                }
            }
        }
    }

    boolean isTest(Method m) {
        return m.annotations().stream().anyMatch(a -> testAnnotations.contains(a.name));
    }

    boolean tagged(List<Annotation> annotations) {
        for (Annotation a : annotations) {
            if (realCodexAnnotations.contains(a.name)) {
                return true;
            }
            if (a.name.equals("Tag") || a.name.equals("Tags")) {
                if (a.strings.contains(TAG)) {
                    return true;
                }
                if (a.name.equals("Tag") && a.strings.isEmpty()) {
                    // A constant: the testkit's own is understood, anything else is a question the scan must
                    // not answer by guessing.
                    if (a.identifiers.contains("RealCodexTestReport") && a.identifiers.contains("TAG")) {
                        return true;
                    }
                    problems.add(a.where + ": @Tag(" + String.join(".", a.identifiers) + ") is not a string"
                            + " literal; .ci/NoSkippedRealCodex.java cannot tell whether it means " + TAG);
                }
            }
        }
        return false;
    }

    /** Tags reach a class from itself, its superclasses and interfaces, and (for a nested class) its enclosing. */
    boolean classTagged(Type type) {
        for (Type t : hierarchy(type)) {
            if (tagged(t.annotations)) {
                return true;
            }
        }
        return type.enclosing != null && type.has("Nested") && classTagged(type.enclosing);
    }

    /** The type, its superclasses, then the interfaces of all of them, as far as the scanned sources go. */
    List<Type> hierarchy(Type type) {
        List<Type> classes = new ArrayList<>();
        for (Type t = type; t != null && !classes.contains(t); t = resolve(t.superName, t)) {
            classes.add(t);
        }
        List<Type> out = new ArrayList<>(classes);
        for (int i = 0; i < out.size(); i++) {
            for (String name : out.get(i).interfaceNames) {
                Type iface = resolve(name, out.get(i));
                if (iface != null && !out.contains(iface)) {
                    out.add(iface);
                }
            }
        }
        return out;
    }

    /** A type named in {@code from}'s source: nested, same file, imported, same package, or fully qualified. */
    Type resolve(String name, Type from) {
        if (name == null) {
            return null;
        }
        String first = name.replaceFirst("\\..*", "");
        String rest = name.contains(".") ? name.substring(first.length()).replace('.', '$') : "";
        for (Type t = from; t != null; t = t.enclosing) {
            for (Type n : t.nested) {
                if (n.simpleName.equals(first)) {
                    return byName.get(n.binaryName + rest);
                }
            }
        }
        List<String> candidates = new ArrayList<>();
        for (Type top : from.fileTypes) {
            if (top.simpleName.equals(first)) {
                candidates.add(top.binaryName + rest);
            }
        }
        if (from.imports.containsKey(first)) {
            candidates.add(from.imports.get(first) + rest);
        }
        candidates.add((from.pkg.isEmpty() ? "" : from.pkg + ".") + first + rest);
        candidates.add(name);
        for (String c : candidates) {
            if (byName.containsKey(c)) {
                return byName.get(c);
            }
        }
        return null;
    }

    final class Type {
        final String kind; // class, interface, enum, record, @interface
        final String simpleName;
        final String binaryName;
        final String pkg;
        final Map<String, String> imports;
        final List<Type> fileTypes;
        final Path file;
        final boolean isTest;
        final Type enclosing;
        final Set<String> modifiers;
        final List<Annotation> annotations;
        String superName;
        final List<String> interfaceNames = new ArrayList<>();
        final List<Method> methods = new ArrayList<>();
        final List<Type> nested = new ArrayList<>();

        Type(String kind, String simpleName, Type enclosing, Parser p, Set<String> modifiers,
             List<Annotation> annotations) {
            this.kind = kind;
            this.simpleName = simpleName;
            this.enclosing = enclosing;
            this.pkg = p.pkg;
            this.imports = p.imports;
            this.fileTypes = p.topLevel;
            this.file = p.file;
            this.isTest = p.tests;
            this.binaryName = enclosing != null ? enclosing.binaryName + "$" + simpleName
                    : (p.pkg.isEmpty() ? "" : p.pkg + ".") + simpleName;
            this.modifiers = modifiers;
            this.annotations = annotations;
        }

        boolean has(String annotation) {
            return annotations.stream().anyMatch(a -> a.name.equals(annotation));
        }

        @Override
        public String toString() {
            return binaryName;
        }
    }

    record Method(String name, Set<String> modifiers, List<Annotation> annotations, String where) {
    }

    /** An annotation's simple name and the string literals and names among its arguments. */
    record Annotation(String name, List<String> strings, List<String> identifiers, String where) {
    }

    /** Reads the declarations of one file into {@link #types}. */
    final class Parser {
        private static final Set<String> MODIFIERS = Set.of("public", "protected", "private", "static", "final",
                "abstract", "default", "synchronized", "native", "transient", "volatile", "strictfp", "sealed");
        final Path file;
        final List<Token> t;
        final boolean tests;
        int p;
        String pkg = "";
        final Map<String, String> imports = new LinkedHashMap<>();
        final List<Type> topLevel = new ArrayList<>();

        Parser(Path file, List<Token> tokens, boolean tests) {
            this.file = file;
            this.t = tokens;
            this.tests = tests;
        }

        void compilationUnit() {
            while (p < t.size()) {
                if (is("package")) {
                    p++;
                    pkg = qualifiedName();
                    skipPast(";");
                } else if (is("import")) {
                    p++;
                    boolean isStatic = is("static");
                    if (isStatic) {
                        p++;
                    }
                    String name = qualifiedName();
                    if (!isStatic && !is(".")) {
                        imports.put(name.substring(name.lastIndexOf('.') + 1), name);
                    }
                    skipPast(";");
                } else if (is("}")) {
                    p++;
                } else {
                    member(null);
                }
            }
        }

        /** One member of a type body (or a top-level type): a type, a method, a field or an initializer. */
        void member(Type owner) {
            List<Annotation> annotations = new ArrayList<>();
            Set<String> modifiers = new LinkedHashSet<>();
            while (p < t.size()) {
                if (is("@") && at(1, "interface")) {
                    p += 2;
                    type("@interface", owner, modifiers, annotations);
                    return;
                }
                if (is("@")) {
                    annotations.add(annotation());
                } else if (MODIFIERS.contains(text()) || is("non") && at(1, "-") && at(2, "sealed")) {
                    p += is("non") ? 3 : 1;
                    modifiers.add(t.get(p - 1).text);
                } else if (is("class") || is("interface") || is("enum")
                        || is("record") && p + 2 < t.size() && t.get(p + 1).ident() && (at(2, "(") || at(2, "<"))) {
                    String kind = text();
                    p++;
                    type(kind, owner, modifiers, annotations);
                    return;
                } else if (is("{")) {
                    skipBalanced("{", "}");
                    return;
                } else if (is(";")) {
                    p++;
                    return;
                } else if (is("}")) {
                    return;
                } else {
                    methodOrField(owner, modifiers, annotations);
                    return;
                }
            }
        }

        void type(String kind, Type owner, Set<String> modifiers, List<Annotation> annotations) {
            String name = text();
            p++;
            Type type = new Type(kind, name, owner, this, modifiers, annotations);
            if (owner == null) {
                topLevel.add(type);
            } else {
                owner.nested.add(type);
            }
            types.add(type);
            byName.put(type.binaryName, type);
            if (is("<")) {
                skipBalanced("<", ">");
            }
            if (is("(")) { // a record's components
                skipBalanced("(", ")");
            }
            String clause = "";
            while (p < t.size() && !is("{")) {
                if (is("extends") || is("implements") || is("permits")) {
                    clause = kind.equals("interface") && is("extends") ? "implements" : text();
                    p++;
                } else if (is("<")) {
                    skipBalanced("<", ">");
                } else if (is("@")) {
                    annotation();
                } else if (t.get(p).ident()) {
                    String supertype = qualifiedName();
                    if (clause.equals("extends")) {
                        type.superName = supertype;
                    } else if (clause.equals("implements")) {
                        type.interfaceNames.add(supertype);
                    }
                } else {
                    p++;
                }
            }
            p++; // {
            if (kind.equals("enum")) {
                // The constants, up to the ';' that starts the members (or the end of the body).
                while (p < t.size() && !is(";") && !is("}")) {
                    if (is("(") || is("{")) {
                        skipBalanced(text(), is("(") ? ")" : "}");
                    } else {
                        p++;
                    }
                }
                if (is(";")) {
                    p++;
                }
            }
            while (p < t.size() && !is("}")) {
                member(type);
            }
            p++; // }
        }

        void methodOrField(Type owner, Set<String> modifiers, List<Annotation> annotations) {
            String last = null;
            while (p < t.size()) {
                if (is("<")) {
                    skipBalanced("<", ">");
                } else if (is("@")) {
                    annotation(); // on a type: @Nullable String
                } else if (is("(")) {
                    int line = t.get(p).line;
                    skipBalanced("(", ")");
                    // throws ..., an annotation element's default value, then a body or ';'
                    while (p < t.size() && !is("{") && !is(";")) {
                        p++;
                    }
                    if (is("{")) {
                        skipBalanced("{", "}");
                    } else {
                        p++;
                    }
                    if (owner != null && last != null && !last.equals(owner.simpleName)) {
                        owner.methods.add(new Method(last, modifiers, annotations, file + ":" + line));
                    }
                    return;
                } else if (is("=") || is(";")) {
                    skipStatement();
                    return;
                } else if (is("{")) { // a record's compact constructor
                    skipBalanced("{", "}");
                    return;
                } else if (is("}")) {
                    return;
                } else {
                    if (t.get(p).ident()) {
                        last = text();
                    }
                    p++;
                }
            }
        }

        Annotation annotation() {
            int line = t.get(p).line;
            p++; // @
            String name = qualifiedName();
            List<String> strings = new ArrayList<>();
            List<String> identifiers = new ArrayList<>();
            if (is("(")) {
                int end = matching("(", ")");
                for (int i = p + 1; i < end; i++) {
                    Token k = t.get(i);
                    if (k.kind == 's') {
                        strings.add(k.text);
                    } else if (k.ident() && !(i + 1 < end && t.get(i + 1).text.equals("="))) {
                        identifiers.add(k.text);
                    }
                }
                p = end + 1;
            }
            return new Annotation(name.substring(name.lastIndexOf('.') + 1), strings, identifiers,
                    file + ":" + line);
        }

        String qualifiedName() {
            StringBuilder name = new StringBuilder(text());
            p++;
            while (is(".") && p + 1 < t.size() && t.get(p + 1).ident()) {
                name.append('.').append(t.get(p + 1).text);
                p += 2;
            }
            return name.toString();
        }

        /** Past the ';' that ends a field or statement, over any bracketed part (lambdas, arrays, calls). */
        void skipStatement() {
            int depth = 0;
            while (p < t.size()) {
                String s = text();
                if (depth == 0 && (s.equals(";") || s.equals("}"))) {
                    if (s.equals(";")) {
                        p++;
                    }
                    return;
                }
                if (s.equals("(") || s.equals("{") || s.equals("[")) {
                    depth++;
                } else if (s.equals(")") || s.equals("}") || s.equals("]")) {
                    depth--;
                }
                p++;
            }
        }

        void skipBalanced(String open, String close) {
            p = matching(open, close) + 1;
        }

        int matching(String open, String close) {
            int depth = 0;
            for (int i = p; i < t.size(); i++) {
                Token k = t.get(i);
                if (k.kind != 'o') {
                    continue;
                }
                if (k.text.equals(open)) {
                    depth++;
                } else if (k.text.equals(close) && --depth == 0) {
                    return i;
                }
            }
            return t.size();
        }

        void skipPast(String s) {
            while (p < t.size() && !is(s)) {
                p++;
            }
            p++;
        }

        boolean is(String s) {
            return p < t.size() && t.get(p).kind != 's' && t.get(p).text.equals(s);
        }

        boolean at(int ahead, String s) {
            return p + ahead < t.size() && t.get(p + ahead).kind != 's' && t.get(p + ahead).text.equals(s);
        }

        String text() {
            return p < t.size() ? t.get(p).text : "";
        }
    }

    /** A token: an identifier or keyword (i), a string literal's value (s), a character or number (c), or one symbol (o). */
    /**
     * Reads a Kotlin file's classes and functions with their annotations, on the Java tokens (which read Kotlin's
     * names, strings, text blocks and comments alike): enough for JUnit's view, which is what the scan needs. Bodies
     * of functions are walked over by their braces, so their local declarations are not taken for members.
     */
    final class KotlinParser {
        private static final Set<String> DECLARATIONS = Set.of("class", "interface", "object", "fun", "val", "var",
                "typealias", "constructor", "init");
        private final Parser file;
        private final List<Token> t;

        KotlinParser(Parser file) {
            this.file = file;
            this.t = file.t;
        }

        void unit() {
            List<Annotation> pending = new ArrayList<>();
            Set<String> modifiers = new LinkedHashSet<>();
            // Each open class body: the class and the brace depth inside it.
            List<Type> owners = new ArrayList<>();
            List<Integer> bodies = new ArrayList<>();
            int depth = 0;
            Type declared = null;           // a class whose body is the next "{" at this depth
            int declaredDepth = -1;
            while (file.p < t.size()) {
                Token k = t.get(file.p);
                String x = k.text;
                if (k.kind == 'o' && x.equals("@")) {
                    if (file.p + 2 < t.size() && t.get(file.p + 2).text.equals(":")) {
                        file.p += 2;         // a use-site target (@file:…, @param:…): the name follows the ":"
                    }
                    pending.add(file.annotation());
                    continue;
                }
                if (k.ident() && x.equals("package") && owners.isEmpty() && depth == 0) {
                    file.p++;
                    file.pkg = file.qualifiedName();
                    continue;
                }
                if (k.ident() && x.equals("import") && depth == 0) {
                    file.p++;
                    String name = file.qualifiedName();
                    if (!file.is(".")) {
                        file.imports.put(name.substring(name.lastIndexOf('.') + 1), name);
                    }
                    continue;
                }
                if (k.kind == 'o' && x.equals("{")) {
                    depth++;
                    if (declared != null && declaredDepth == depth - 1) {
                        owners.add(declared);
                        bodies.add(depth);
                    }
                    declared = null;
                    pending.clear();
                    modifiers.clear();
                    file.p++;
                    continue;
                }
                if (k.kind == 'o' && x.equals("}")) {
                    if (!bodies.isEmpty() && bodies.get(bodies.size() - 1) == depth) {
                        owners.remove(owners.size() - 1);
                        bodies.remove(bodies.size() - 1);
                    }
                    depth--;
                    pending.clear();
                    modifiers.clear();
                    file.p++;
                    continue;
                }
                boolean inClassBody = bodies.isEmpty() ? depth == 0 : bodies.get(bodies.size() - 1) == depth;
                if (k.ident() && (x.equals("class") || x.equals("interface") || x.equals("object"))
                        && inClassBody && file.p + 1 < t.size() && t.get(file.p + 1).ident()) {
                    Type owner = owners.isEmpty() ? null : owners.get(owners.size() - 1);
                    Type type = new Type(x.equals("interface") ? "interface" : "class", t.get(file.p + 1).text, owner,
                            file, Set.copyOf(modifiers), List.copyOf(pending));
                    if (owner == null) {
                        file.topLevel.add(type);
                    } else {
                        owner.nested.add(type);
                    }
                    types.add(type);
                    byName.put(type.binaryName, type);
                    file.p += 2;
                    superclass(type);
                    declared = type;
                    declaredDepth = depth;
                    pending.clear();
                    modifiers.clear();
                    continue;
                }
                if (k.ident() && x.equals("fun") && inClassBody) {
                    // The name is the identifier before the parameters: a receiver (fun Foo.bar) comes first.
                    int q = file.p + 1;
                    String name = null;
                    while (q < t.size() && !t.get(q).text.equals("(")) {
                        if (t.get(q).ident()) {
                            name = t.get(q).text;
                        }
                        q++;
                    }
                    if (name != null && !owners.isEmpty()) {
                        owners.get(owners.size() - 1).methods.add(new Method(name, Set.copyOf(modifiers),
                                List.copyOf(pending), file.file + ":" + k.line));
                    }
                    pending.clear();
                    modifiers.clear();
                    file.p = q;
                    continue;
                }
                if (k.ident() && DECLARATIONS.contains(x)) {
                    pending.clear();
                    modifiers.clear();
                } else if (k.ident()) {
                    modifiers.add(x);     // private, abstract, inner, data, … (and names, which nothing reads)
                }
                file.p++;
            }
        }

        /** After {@code class Name}: the primary constructor, then the first supertype, if any. */
        private void superclass(Type type) {
            if (file.is("<")) {
                file.skipBalanced("<", ">");
            }
            while (file.p < t.size() && (t.get(file.p).ident() && !t.get(file.p).text.equals("class"))
                    && !t.get(file.p).text.equals(":") && !t.get(file.p).text.equals("{") && !t.get(file.p).text.equals("(")) {
                file.p++;            // constructor modifiers: private constructor, @Inject constructor
            }
            if (file.p < t.size() && t.get(file.p).text.equals("(")) {
                file.skipBalanced("(", ")");
            }
            if (file.p < t.size() && t.get(file.p).text.equals(":") && file.p + 1 < t.size() && t.get(file.p + 1).ident()) {
                file.p++;
                type.superName = file.qualifiedName();
            }
        }
    }

    private record Token(char kind, String text, int line) {
        boolean ident() {
            return kind == 'i';
        }
    }

    /** The tokens of a Java source, comments left out. */
    static List<Token> tokens(String s) {
        List<Token> out = new ArrayList<>();
        int line = 1;
        int i = 0;
        int n = s.length();
        while (i < n) {
            char c = s.charAt(i);
            if (c == '\n') {
                line++;
                i++;
            } else if (Character.isWhitespace(c)) {
                i++;
            } else if (s.startsWith("//", i)) {
                while (i < n && s.charAt(i) != '\n') {
                    i++;
                }
            } else if (s.startsWith("/*", i)) {
                int end = s.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
                line += count(s, i, end);
                i = end;
            } else if (s.startsWith("\"\"\"", i)) {
                int j = i + 3;
                while (j < n && !(s.startsWith("\"\"\"", j) && s.charAt(j - 1) != '\\')) {
                    j++;
                }
                out.add(new Token('s', s.substring(i + 3, Math.min(j, n)), line));
                line += count(s, i, Math.min(j, n));
                i = j + 3;
            } else if (c == '"' || c == '\'') {
                StringBuilder value = new StringBuilder();
                int j = i + 1;
                while (j < n && s.charAt(j) != c && s.charAt(j) != '\n') {
                    if (s.charAt(j) == '\\' && j + 1 < n) {
                        j++;
                    }
                    value.append(s.charAt(j));
                    j++;
                }
                out.add(new Token(c == '"' ? 's' : 'c', value.toString(), line));
                i = j + 1;
            } else if (c == '`') {
                // A Kotlin name in backticks (`a test name`): one identifier.
                int end = s.indexOf('`', i + 1);
                end = end < 0 ? n : end;
                out.add(new Token('i', s.substring(i + 1, end), line));
                i = end + 1;
            } else if (Character.isJavaIdentifierStart(c)) {
                int j = i;
                while (j < n && Character.isJavaIdentifierPart(s.charAt(j))) {
                    j++;
                }
                out.add(new Token('i', s.substring(i, j), line));
                i = j;
            } else if (Character.isDigit(c)) {
                int j = i;
                while (j < n && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '_' || s.charAt(j) == '.')) {
                    j++;
                }
                out.add(new Token('c', s.substring(i, j), line));
                i = j;
            } else {
                out.add(new Token('o', String.valueOf(c), line));
                i++;
            }
        }
        return out;
    }

    private static int count(String s, int from, int to) {
        int lines = 0;
        for (int i = from; i < to; i++) {
            if (s.charAt(i) == '\n') {
                lines++;
            }
        }
        return lines;
    }
}
