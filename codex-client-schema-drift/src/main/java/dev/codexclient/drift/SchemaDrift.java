package dev.codexclient.drift;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codexclient.CodexVersion;
import dev.codexclient.drift.internal.ClientApiRequirements;
import dev.codexclient.drift.internal.ClientApiRequirements.Requirement;
import dev.codexclient.drift.internal.ClientApiRequirements.Kind;
import dev.codexclient.drift.internal.DriftReport;
import dev.codexclient.drift.internal.FollowUp;
import dev.codexclient.drift.internal.ProtocolSchema;
import dev.codexclient.drift.internal.SchemaDiff;
import dev.codexclient.drift.internal.SchemaDiff.Drift;
import dev.codexclient.drift.internal.SchemaSources;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The drift report: what the protocol of a codex executable has that differs from the schema this SDK was
 * generated from, and whether it lacks anything the client API relies on.
 *
 * <pre>
 * java -cp codex-client-schema-drift.jar:codex-client-core.jar:codex-client-protocol.jar:jackson-*.jar:slf4j-api.jar \
 *     dev.codexclient.drift.SchemaDrift --codex /usr/local/bin/codex [--json]
 * java -p DIR -m dev.codexclient.drift --codex /usr/local/bin/codex      (DIR: the same jars)
 * </pre>
 *
 * <p>It runs {@code codex app-server generate-json-schema --experimental} (with a private, temporary
 * {@code HOME} and {@code CODEX_HOME}) and compares the result with the pinned schema, which this artifact
 * ships. Exit status: {@code 0} when the codex offers every method the client API
 * relies on, {@code 1} when it lacks one (with {@code --strict}: when anything differs), {@code 2} on a usage
 * error or when no schema could be read.
 */
public final class SchemaDrift {
    /** The codex offers everything the client API relies on. */
    public static final int COMPATIBLE = 0;
    /** The codex lacks something the client API relies on (with {@code --strict}: anything differs). */
    public static final int INCOMPATIBLE = 1;
    /** A usage error, or no schema could be produced or read. */
    public static final int ERROR = 2;

    private static final String USAGE = """
            Usage: SchemaDrift [--codex PATH | --schema PATH] [--json | --json-file PATH] [--details] [--strict]
                               [--untyped] [--decisions] [--allow-missing METHOD,...] [--timeout SECONDS]

            Compares the app-server protocol of a codex with the schema this SDK was generated from (codex %s).

              --codex PATH        the codex executable to check (default: codex on the PATH)
              --schema PATH       compare a schema exported before instead: the directory
                                  `codex app-server generate-json-schema --experimental --out DIR` wrote, or its
                                  codex_app_server_protocol.schemas.json
              --json              print the report as JSON (every difference; for CI)
              --json-file PATH    print the text report and write the JSON one to PATH
              --details           list every changed field, value and variant of every type
              --strict            exit 1 when anything differs, not only when something the client API relies on
                                  is missing
              --untyped           also list the methods of this codex that the SDK does not type (the JSON report
                                  always has them, as "untyped")
              --decisions         also list what moving the SDK's pin to this codex removes and reshapes: what a
                                  maintainer must decide (schema/regenerate.sh prints it)
              --allow-missing M   methods the client API relies on that your code does not use (comma-separated);
                                  their absence does not fail the check
              --timeout SECONDS   how long codex may take to export its schema (default 120)
              -h, --help          this text

            Exit status: 0 compatible, 1 missing what the client API relies on (--strict: any drift), 2 error.
            """;

    private SchemaDrift() {
    }

    /**
     * Runs the report and exits with its status.
     *
     * @param args the command line; {@code --help} lists the options
     */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Runs the report, printing to {@code out} and {@code err}.
     *
     * @param args the command line, as for {@link #main(String[])}
     * @param out  where the report (or the help text) goes
     * @param err  where errors and warnings go
     * @return the exit status: {@link #COMPATIBLE}, {@link #INCOMPATIBLE} or {@link #ERROR}
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("SchemaDrift: " + e.getMessage());
            err.println("Run with --help for the options.");
            return ERROR;
        }
        if (o.help) {
            out.print(usage());
            return COMPATIBLE;
        }
        DriftReport.Subject subject;
        JsonNode bundle;
        try {
            if (o.schema != null) {
                bundle = SchemaSources.read(o.schema);
                subject = new DriftReport.Subject("the schema " + o.schema.getFileName(), "", o.schema.toString());
            } else {
                Path codex = o.codex != null ? o.codex : onPath("codex").orElseThrow(() ->
                        new IllegalStateException("no codex on the PATH; name one with --codex PATH"));
                SchemaSources.Exported exported = SchemaSources.export(codex, o.timeout);
                bundle = exported.bundle();
                String version = CodexVersion.find(exported.versionOutput()).map(CodexVersion::text).orElse("");
                subject = new DriftReport.Subject(version.isEmpty() ? "codex" : "codex " + version, version,
                        codex.toString());
                if (!exported.experimental()) {
                    err.println("SchemaDrift: " + codex + " does not know --experimental; compared its whole schema");
                }
            }
        } catch (IllegalStateException | UncheckedIOException e) {
            err.println("SchemaDrift: " + e.getMessage());
            return ERROR;
        }
        Drift drift;
        ProtocolSchema theirs;
        try {
            List<Requirement> requirements = new ArrayList<>();
            for (Requirement r : ClientApiRequirements.all()) {
                if (!o.allowMissing.contains(r.method())) {
                    requirements.add(r);
                }
            }
            theirs = ProtocolSchema.read(bundle);
            drift = SchemaDiff.compare(pinned(), theirs, requirements);
        } catch (IllegalArgumentException | IllegalStateException | UncheckedIOException e) {
            err.println("SchemaDrift: " + e.getMessage());
            return ERROR;
        }
        String sdkVersion = CodexVersion.pinned().text();
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        Map<Kind, List<String>> untyped = FollowUp.untyped(theirs);
        try {
            ObjectNode report = DriftReport.json(drift, sdkVersion, subject);
            report.set("untyped", FollowUp.untypedJson(untyped));
            if (o.json) {
                out.println(json.writeValueAsString(report));
            } else {
                out.print(DriftReport.text(drift, sdkVersion, subject, o.details));
                if (o.untyped) {
                    out.print(FollowUp.untypedText(untyped, subject.name()));
                }
                if (o.decisions) {
                    out.print(FollowUp.decisions(drift, subject.name()));
                }
            }
            if (o.jsonFile != null) {
                json.writeValue(o.jsonFile.toFile(), report);
            }
        } catch (IOException e) {
            err.println("SchemaDrift: cannot write the report: " + e.getMessage());
            return ERROR;
        }
        boolean failed = !drift.compatible() || (o.strict && !drift.isEmpty());
        return failed ? INCOMPATIBLE : COMPATIBLE;
    }

    private static ProtocolSchema pinnedSchema;

    /** Read once per JVM: a megabyte of JSON. */
    private static synchronized ProtocolSchema pinned() {
        if (pinnedSchema == null) {
            pinnedSchema = ProtocolSchema.read(SchemaSources.pinned());
        }
        return pinnedSchema;
    }

    private static String usage() {
        String pinned;
        try {
            pinned = CodexVersion.pinned().text();
        } catch (RuntimeException e) {
            pinned = "?";
        }
        return String.format(USAGE, pinned);
    }

    private static Optional<Path> onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path candidate = dir.isEmpty() ? null : Path.of(dir, name);
            if (candidate != null && Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** The parsed command line. */
    private static final class Options {
        Path codex;
        Path schema;
        Path jsonFile;
        boolean json;
        boolean details;
        boolean strict;
        boolean untyped;
        boolean decisions;
        boolean help;
        Duration timeout = Duration.ofSeconds(120);
        final Set<String> allowMissing = new LinkedHashSet<>();

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                switch (arg) {
                    case "--codex" -> o.codex = Path.of(value(args, ++i, arg));
                    case "--schema" -> o.schema = Path.of(value(args, ++i, arg));
                    case "--json" -> o.json = true;
                    case "--json-file" -> o.jsonFile = Path.of(value(args, ++i, arg));
                    case "--details" -> o.details = true;
                    case "--strict" -> o.strict = true;
                    case "--untyped" -> o.untyped = true;
                    case "--decisions" -> o.decisions = true;
                    case "-h", "--help" -> o.help = true;
                    case "--allow-missing" -> Arrays.stream(value(args, ++i, arg).split(","))
                            .map(String::strip).filter(s -> !s.isEmpty()).forEach(o.allowMissing::add);
                    case "--timeout" -> {
                        String v = value(args, ++i, arg);
                        try {
                            long seconds = Long.parseLong(v);
                            if (seconds <= 0) {
                                throw new NumberFormatException();
                            }
                            o.timeout = Duration.ofSeconds(seconds);
                        } catch (NumberFormatException e) {
                            throw new IllegalArgumentException("--timeout takes a positive number of seconds: " + v);
                        }
                    }
                    default -> throw new IllegalArgumentException("unknown option " + arg);
                }
            }
            if (o.json && o.jsonFile != null) {
                throw new IllegalArgumentException("--json and --json-file exclude each other");
            }
            if (o.codex != null && o.schema != null) {
                throw new IllegalArgumentException("--codex and --schema exclude each other");
            }
            if (o.codex != null && !(Files.isRegularFile(o.codex) && Files.isExecutable(o.codex))) {
                throw new IllegalArgumentException("--codex " + o.codex + " is not an executable file");
            }
            if (o.schema != null && !Files.exists(o.schema)) {
                throw new IllegalArgumentException("--schema " + o.schema + " does not exist");
            }
            for (String m : o.allowMissing) {
                if (ClientApiRequirements.all().stream().noneMatch(r -> r.method().equals(m))) {
                    throw new IllegalArgumentException("--allow-missing " + m
                            + " is not a method the client API relies on");
                }
            }
            return o;
        }

        private static String value(String[] args, int i, String option) {
            if (i >= args.length || args[i].startsWith("--")) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            return args[i];
        }
    }
}
