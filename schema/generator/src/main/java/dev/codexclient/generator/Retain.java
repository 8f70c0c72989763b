package dev.codexclient.generator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Updates {@code schema/retained.json} when the pinned schema moves to a newer codex: the methods the old schema
 * has and the new one lacks are kept, with the definitions they need, so that the client still speaks them with
 * the servers that have them. schema/regenerate.sh runs it between exporting the new schema and replacing the old.
 *
 * <pre>
 * java dev.codexclient.generator.Retain --old DIR --old-version 0.169.0 --new DIR --retained schema/retained.json \
 *      [--server-requests] [--method ClientRequest:thread/foo ...]
 * </pre>
 *
 * <p>{@code DIR}s hold {@code stable/} and {@code experimental/} exports. {@code --server-requests} keeps every
 * removed server request: an older server may still send one, and the client must answer it. Other removed
 * methods are kept only when named with {@code --method}; the tool lists them, since keeping them is a maintainer's
 * decision. Retained methods that the new schema has again leave the file.
 */
public final class Retain {
    private Retain() {
    }

    public static void main(String[] args) {
        try {
            run(args);
        } catch (GeneratorException | IllegalArgumentException e) {
            System.err.println("retain: " + e.getMessage());
            System.exit(1);
        } catch (IOException e) {
            System.err.println("retain: I/O error: " + e);
            System.exit(2);
        }
    }

    static void run(String[] args) throws IOException {
        Path oldDir = null;
        Path newDir = null;
        Path file = null;
        Path overrides = null;
        String oldVersion = null;
        boolean serverRequests = false;
        List<String> named = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--server-requests")) {
                serverRequests = true;
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("missing value for " + a);
            }
            switch (a) {
                case "--old" -> oldDir = Path.of(args[++i]);
                case "--new" -> newDir = Path.of(args[++i]);
                case "--retained" -> file = Path.of(args[++i]);
                case "--old-version" -> oldVersion = args[++i];
                case "--method" -> named.add(args[++i]);
                case "--overrides" -> overrides = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + a);
            }
        }
        if (oldDir == null || newDir == null || file == null || oldVersion == null) {
            throw new IllegalArgumentException("usage: --old DIR --old-version V --new DIR --retained FILE "
                    + "[--server-requests] [--method Union:method ...]");
        }
        ObjectMapper m = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        Retained existing = Files.isRegularFile(file) ? Retained.read(m.readTree(file.toFile()), file.toString())
                : Retained.NONE;
        Map<String, String> responses = overrides == null ? Map.of()
                : Overrides.read(m.readTree(overrides.toFile())).responses;
        Retained updated = update(existing, bundle(m, oldDir, "experimental"), bundle(m, oldDir, "stable"),
                oldVersion, bundle(m, newDir, "experimental"), serverRequests, named, responses, System.out);
        if (updated.methods().isEmpty()) {
            Files.deleteIfExists(file);
        } else {
            Files.writeString(file, m.writeValueAsString(updated.toJson()) + "\n");
        }
    }

    private static Map<String, JsonNode> bundle(ObjectMapper m, Path dir, String flavor) throws IOException {
        Path p = dir.resolve(flavor).resolve("codex_app_server_protocol.schemas.json");
        return Generator.flatten(m.readTree(p.toFile()), p.toString());
    }

    /** The file's new content; reports each decision on {@code out}. */
    static Retained update(Retained existing, Map<String, JsonNode> oldDefs, Map<String, JsonNode> oldStable,
                           String oldVersion, Map<String, JsonNode> newDefs, boolean serverRequests,
                           List<String> named, Map<String, String> responses, Appendable out)
            throws IOException {
        List<Retained.Method> methods = new ArrayList<>();
        Set<String> have = new LinkedHashSet<>();
        for (Retained.Method r : existing.methods()) {
            if (methodsOf(newDefs, r.union()).containsKey(r.method())) {
                out.append("retain: ").append(r.union()).append(' ').append(r.method())
                        .append(" is in the new schema again; no longer retained\n");
            } else {
                methods.add(r);
                have.add(r.union() + ":" + r.method());
            }
        }
        Set<String> wanted = new LinkedHashSet<>(named);
        for (String union : Generator.METHOD_UNIONS) {
            Map<String, JsonNode> before = methodsOf(oldDefs, union);
            Map<String, JsonNode> after = methodsOf(newDefs, union);
            for (Map.Entry<String, JsonNode> e : before.entrySet()) {
                String key = union + ":" + e.getKey();
                if (after.containsKey(e.getKey()) || have.contains(key)) {
                    continue;
                }
                if (wanted.remove(key) || (serverRequests && union.equals("ServerRequest"))) {
                    boolean experimental = !methodsOf(oldStable, union).containsKey(e.getKey());
                    methods.add(new Retained.Method(union, e.getKey(), oldVersion, experimental, e.getValue()));
                    have.add(key);
                    out.append("retain: ").append(union).append(' ').append(e.getKey())
                            .append(" (removed after codex ").append(oldVersion).append(") is kept\n");
                } else {
                    out.append("retain: ").append(union).append(' ').append(e.getKey())
                            .append(" (removed after codex ").append(oldVersion)
                            .append(") is dropped; keep it with --method ").append(key).append('\n');
                }
            }
        }
        if (!wanted.isEmpty()) {
            throw new GeneratorException("not a method removed after codex " + oldVersion + ": " + wanted);
        }
        // The definitions the retained variants need that the new schema lacks, from the file or the old schema.
        Map<String, JsonNode> defs = new TreeMap<>();
        Map<String, JsonNode> experimentalDefs = new TreeMap<>();
        Deque<String> todo = new ArrayDeque<>();
        Map<String, String> neededBy = new TreeMap<>();
        for (Retained.Method r : methods) {
            Set<String> needs = Retained.refs(r.variant());
            if (r.union().endsWith("Request")) {
                needs.add(responseOf(r, responses));
            }
            for (String ref : needs) {
                todo.add(ref);
                neededBy.putIfAbsent(ref, r.method());
            }
        }
        Set<String> seen = new LinkedHashSet<>();
        while (!todo.isEmpty()) {
            String name = todo.poll();
            if (!seen.add(name)) {
                continue;
            }
            boolean experimental;
            JsonNode def;
            if (existing.definitions().containsKey(name)) {
                def = existing.definitions().get(name);
                experimental = false;
            } else if (existing.experimentalDefinitions().containsKey(name)) {
                def = existing.experimentalDefinitions().get(name);
                experimental = true;
            } else if (oldDefs.containsKey(name)) {
                def = oldDefs.get(name);
                experimental = !oldStable.containsKey(name);
            } else {
                throw new GeneratorException("retained " + neededBy.get(name) + " needs " + name
                        + ", which neither retained.json nor the old schema defines");
            }
            JsonNode pinned = newDefs.get(name);
            if (pinned != null) {
                if (!Generator.sameShape(pinned, def)) {
                    throw new GeneratorException("retained " + neededBy.get(name) + " needs the old shape of " + name
                            + ", which the new schema changed; drop the method or rename the old type by hand");
                }
                continue;
            }
            (experimental ? experimentalDefs : defs).put(name, def);
            for (String ref : Retained.refs(def)) {
                todo.add(ref);
                neededBy.putIfAbsent(ref, neededBy.get(name));
            }
        }
        return new Retained(methods, defs, experimentalDefs);
    }

    /** The response type of a request, by the generator's rule: the responses override, else XParams → XResponse. */
    private static String responseOf(Retained.Method r, Map<String, String> responses) {
        String named = responses.get(r.method());
        if (named != null) {
            return named;
        }
        String params = r.variant().path("properties").path("params").path("$ref").asText("");
        params = params.substring(params.lastIndexOf('/') + 1);
        if (!params.endsWith("Params")) {
            throw new GeneratorException("retained " + r.method() + ": no response type can be derived from its "
                    + "params; add it to the responses override");
        }
        return params.substring(0, params.length() - "Params".length()) + "Response";
    }

    /** Method name → its variant, in schema order; empty when the bundle has no such union. */
    static Map<String, JsonNode> methodsOf(Map<String, JsonNode> bundle, String union) {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        JsonNode u = bundle.get(union);
        if (u != null) {
            for (JsonNode v : u.path("oneOf")) {
                String method = Retained.methodOf(v);
                if (method != null) {
                    out.put(method, v);
                }
            }
        }
        return out;
    }
}
