package dev.codexclient.generator;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Which checked codex versions have each method: the method lists of {@code schema/methods} (one per version,
 * {@link MethodLists}) turned around. The generator writes it into the descriptors ({@code MethodVersions}), the
 * Javadoc ("since codex X") and the documentation's version columns.
 *
 * @param versions every checked version, oldest first
 * @param lists    version → its methods
 */
record VersionTable(List<String> versions, Map<String, MethodLists> lists) {
    static final VersionTable NONE = new VersionTable(List.of(), Map.of());

    /** Reads every {@code VERSION.txt} of {@code dir}. */
    static VersionTable read(Path dir) throws IOException {
        Map<String, MethodLists> lists = new TreeMap<>(MethodLists.VERSION_ORDER);
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.getFileName().toString().endsWith(".txt")).sorted().toList()) {
                MethodLists l = MethodLists.read(f);
                lists.put(l.version(), l);
            }
        }
        if (lists.isEmpty()) {
            throw new GeneratorException(dir + ": no method lists (schema/method-lists.sh VERSION writes one)");
        }
        return new VersionTable(List.copyOf(lists.keySet()), lists);
    }

    boolean isEmpty() {
        return versions.isEmpty();
    }

    /** {@return the checked versions that have the method, oldest first} */
    List<String> versionsOf(String union, String method) {
        List<String> out = new ArrayList<>();
        for (String v : versions) {
            if (lists.get(v).methods().getOrDefault(union, Set.of()).contains(method)) {
                out.add(v);
            }
        }
        return out;
    }

    /**
     * Fails unless the pinned version's list is there and names exactly the methods of the pinned schema, as
     * exported (before retained methods join it): a list written by hand, or one left from an earlier pin, would
     * make every "since" wrong.
     */
    void checkPinned(String pinned, Map<String, JsonNode> pinnedDefs) {
        MethodLists list = lists.get(pinned);
        if (list == null) {
            throw new GeneratorException("schema/methods has no list of the pinned codex " + pinned
                    + "; run schema/method-lists.sh " + pinned);
        }
        MethodLists actual = MethodLists.of(pinned, pinnedDefs);
        if (!actual.methods().equals(list.methods())) {
            throw new GeneratorException("schema/methods/" + pinned + ".txt does not list the methods of the pinned "
                    + "schema; run schema/method-lists.sh " + pinned);
        }
    }
}
