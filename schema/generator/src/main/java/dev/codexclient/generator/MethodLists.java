package dev.codexclient.generator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The methods of one codex version, one line each ({@code schema/methods/VERSION.txt}): a compact record of what
 * each checked version has, kept instead of the version's whole schema. schema/method-lists.sh writes one from the
 * version's exported schema; the generator reads them all ({@link VersionTable}).
 *
 * <pre>
 * # codex 0.171.0: the methods of its exported schema (schema/method-lists.sh)
 * client-request initialize
 * notification turn/completed
 * server-request item/tool/call
 * client-notification initialized
 * </pre>
 *
 * <pre>
 * java dev.codexclient.generator.MethodLists --out-dir schema/methods 0.171.0=DIR/codex_app_server_protocol.schemas.json
 * </pre>
 *
 * @param version the codex version
 * @param methods kind (a method union) → its methods, sorted
 */
public record MethodLists(String version, Map<String, Set<String>> methods) {
    /** The method unions and the word each has in a list. */
    static final Map<String, String> KINDS = kinds();

    private static Map<String, String> kinds() {
        Map<String, String> k = new LinkedHashMap<>();
        k.put("ClientRequest", "client-request");
        k.put("ServerNotification", "notification");
        k.put("ServerRequest", "server-request");
        k.put("ClientNotification", "client-notification");
        return k;
    }

    private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+)\\.(\\d+)(?:-([0-9A-Za-z.-]+))?");

    /** Orders versions the semantic-versioning way (0.98.0 before 0.120.0, a pre-release before its release). */
    static final Comparator<String> VERSION_ORDER = (a, b) -> {
        Matcher x = VERSION.matcher(a);
        Matcher y = VERSION.matcher(b);
        if (!x.matches() || !y.matches()) {
            throw new GeneratorException("not a codex version: " + (x.matches() ? b : a));
        }
        for (int i = 1; i <= 3; i++) {
            int c = Long.compare(Long.parseLong(x.group(i)), Long.parseLong(y.group(i)));
            if (c != 0) {
                return c;
            }
        }
        String p = x.group(4);
        String q = y.group(4);
        if (p == null || q == null) {
            return p == null ? (q == null ? 0 : 1) : -1;
        }
        return p.compareTo(q);
    };

    static boolean isVersion(String s) {
        return VERSION.matcher(s).matches();
    }

    public static void main(String[] args) {
        try {
            if (args.length < 3 || !args[0].equals("--out-dir")) {
                throw new IllegalArgumentException("usage: --out-dir DIR VERSION=BUNDLE...");
            }
            Path dir = Path.of(args[1]);
            Files.createDirectories(dir);
            for (int i = 2; i < args.length; i++) {
                int eq = args[i].indexOf('=');
                if (eq < 0) {
                    throw new IllegalArgumentException("expected VERSION=BUNDLE: " + args[i]);
                }
                String version = args[i].substring(0, eq);
                Path bundle = Path.of(args[i].substring(eq + 1));
                MethodLists lists = ofBundle(version, new ObjectMapper().readTree(bundle.toFile()));
                Path out = dir.resolve(version + ".txt");
                Files.writeString(out, lists.text(), StandardCharsets.UTF_8);
                System.out.println("method-lists: codex " + version + ": " + lists.summary() + " -> " + out);
            }
        } catch (GeneratorException | IllegalArgumentException e) {
            System.err.println("method-lists: " + e.getMessage());
            System.exit(1);
        } catch (IOException e) {
            System.err.println("method-lists: I/O error: " + e);
            System.exit(2);
        }
    }

    /**
     * The methods of a bundle as exported. Only the method unions are read: older bundles (0.98.0) define some
     * types twice, in the root and in {@code v2}, with different shapes, which a flattened view cannot hold.
     */
    static MethodLists ofBundle(String version, JsonNode bundle) {
        Map<String, JsonNode> unions = new TreeMap<>();
        for (String union : KINDS.keySet()) {
            JsonNode u = bundle.path("definitions").path(union);
            if (u.isMissingNode()) {
                u = bundle.path("definitions").path("v2").path(union);
            }
            if (!u.isMissingNode()) {
                unions.put(union, u);
            }
        }
        return of(version, unions);
    }

    /** The methods of a flattened bundle. */
    static MethodLists of(String version, Map<String, JsonNode> defs) {
        if (!isVersion(version)) {
            throw new GeneratorException("not a codex version: " + version);
        }
        Map<String, Set<String>> methods = new LinkedHashMap<>();
        for (String union : KINDS.keySet()) {
            Set<String> names = new TreeSet<>();
            JsonNode u = defs.get(union);
            if (u == null) {
                throw new GeneratorException("codex " + version + ": the schema has no " + union);
            }
            for (JsonNode v : u.path("oneOf")) {
                String method = Retained.methodOf(v);
                if (method == null) {
                    throw new GeneratorException("codex " + version + ": a variant of " + union + " names no method");
                }
                names.add(method);
            }
            methods.put(union, names);
        }
        return new MethodLists(version, methods);
    }

    String text() {
        StringBuilder out = new StringBuilder("# codex ").append(version)
                .append(": the methods of its exported schema (schema/method-lists.sh)\n");
        methods.forEach((union, names) -> names.forEach(m -> out.append(KINDS.get(union)).append(' ').append(m)
                .append('\n')));
        return out.toString();
    }

    String summary() {
        List<String> parts = new ArrayList<>();
        methods.forEach((union, names) -> parts.add(names.size() + " " + KINDS.get(union) + "s"));
        return String.join(", ", parts);
    }

    /** Reads one list; its file is named after its version. */
    static MethodLists read(Path file) throws IOException {
        String name = file.getFileName().toString();
        if (!name.endsWith(".txt") || !isVersion(name.substring(0, name.length() - 4))) {
            throw new GeneratorException(file + ": a method list is named VERSION.txt");
        }
        String version = name.substring(0, name.length() - 4);
        Map<String, String> unionOf = new TreeMap<>();
        KINDS.forEach((union, word) -> unionOf.put(word, union));
        Map<String, Set<String>> methods = new LinkedHashMap<>();
        KINDS.keySet().forEach(u -> methods.put(u, new TreeSet<>()));
        int lineNo = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            lineNo++;
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] parts = line.strip().split(" ");
            String union = parts.length == 2 ? unionOf.get(parts[0]) : null;
            if (union == null) {
                throw new GeneratorException(file + ":" + lineNo + ": expected '<kind> <method>' with a kind of "
                        + KINDS.values() + ": " + line);
            }
            methods.get(union).add(parts[1]);
        }
        return new MethodLists(version, methods);
    }
}
