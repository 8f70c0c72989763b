package dev.codexclient.generator;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Command line entry point: reads the vendored schema and the overrides, writes the protocol sources.
 *
 * <pre>
 * java dev.codexclient.generator.Main --schema-dir schema --overrides schema/codegen-overrides.json \
 *      --out codex-client-protocol/src/generated/java
 * </pre>
 *
 * <p>The output directory's {@code dev/codexclient/protocol} folder is replaced entirely, so files of types that
 * disappeared from the schema do not linger. With {@code --docs DIR}, the version tables of the documentation are
 * written there too ({@link VersionDocs}).
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        try {
            run(args);
        } catch (GeneratorException | IllegalArgumentException e) {
            System.err.println("codex-client-generator: " + e.getMessage());
            System.exit(1);
        } catch (IOException e) {
            System.err.println("codex-client-generator: I/O error: " + e);
            System.exit(2);
        }
    }

    static void run(String[] args) throws IOException {
        Path schemaDir = Path.of("schema");
        Path overrides = null;
        Path out = null;
        Path docs = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("missing value for " + a);
            }
            switch (a) {
                case "--schema-dir" -> schemaDir = Path.of(args[++i]);
                case "--overrides" -> overrides = Path.of(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                case "--docs" -> docs = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + a
                        + " (usage: --schema-dir DIR [--overrides FILE] --out DIR [--docs DIR])");
            }
        }
        if (out == null) {
            throw new IllegalArgumentException("--out is required");
        }
        if (overrides == null) {
            overrides = schemaDir.resolve("codegen-overrides.json");
        }
        Generator gen = Generator.fromSchemaDir(schemaDir, overrides);
        Map<String, String> files = gen.generate();
        Path pkgDir = out.resolve(Generator.PACKAGE.replace('.', '/'));
        if (Files.isDirectory(pkgDir)) {
            try (var stream = Files.list(pkgDir)) {
                for (Path p : (Iterable<Path>) stream::iterator) {
                    if (p.getFileName().toString().endsWith(".java")) {
                        Files.delete(p);
                    }
                }
            }
        }
        Files.createDirectories(pkgDir);
        for (Map.Entry<String, String> e : files.entrySet()) {
            Files.writeString(pkgDir.resolve(e.getKey() + ".java"), e.getValue());
        }
        System.out.println("codex-client-generator: wrote " + files.size() + " files to " + pkgDir);
        if (docs != null && !gen.versionTable().isEmpty()) {
            new VersionDocs(gen.versionTable(), gen.allMethods()).write(docs);
            System.out.println("codex-client-generator: wrote " + docs.resolve(VersionDocs.PAGE)
                    + " and the version cells of " + docs);
        }
        System.out.println("codex-client-generator: " + gen.summary());
    }
}
