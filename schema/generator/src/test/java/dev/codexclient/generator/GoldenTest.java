package dev.codexclient.generator;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Compares the output for the hardest definitions of the schema with reviewed copies under
 * {@code src/test/resources/golden}. After a deliberate generator change, refresh them with
 * {@code -Dgolden.update=true} and review the diff.
 */
class GoldenTest {
    private static Map<String, String> generated;

    static List<String> goldenFiles() {
        return List.of(
                "ThreadItem",                                   // common fields, flattened anyOf, 19 variants
                "CommandExecutionApprovalDecision",             // externally tagged, lossless Unrecognized
                "ReviewDecision",                               // snake_case keys, shadowing
                "CodexErrorInfo",                               // anyOf, two string groups, catch-all
                "McpServerElicitationRequestParams",            // base props + mode, name override, experimental variant
                "McpElicitationPrimitiveSchema",                // nested untagged unions
                "McpElicitationEnumSchema",
                "McpElicitationUntitledSingleSelectEnumSchema", // keyword fields, additionalProperties:false
                "UserInput",                                    // flattened alternatives
                "AskForApproval",                               // kebab-case strings, primitive booleans
                "SessionSource",                                // nested mixed unions
                "SubAgentSource",
                "ServerNotification",                           // envelope emittedAtMs, extra methods
                "ClientRequest",                                // three params shapes
                "ClientRequestMethods",                         // response table
                "ThreadMetadataGitInfoUpdateParams",            // tri-state
                "CollaborationModeMask",                        // structural tri-state
                "ThreadSectionMoveParams",                      // required nullable
                "CommandExecParams",                            // map with null values, experimental field
                "HookMetadata",                                 // handlerType tag, 15 common fields
                "FileSystemSpecialPath",                        // kind tag, real "unknown" variant
                "AppsConfig",                                   // any-setter map override
                "Config",                                       // additionalProperties:true with properties
                "SandboxMode",                                  // enum with kebab values
                "FunctionCallOutputBody",                       // string | array
                "ThreadItemsListCursor",                        // string | tagged union
                "ThreadInfo",                                   // renamed: Thread would hide java.lang.Thread
                "AgentMessageDeltaNotificationJson",            // binder of a plain record (the hot path)
                "ThreadItemJson",                               // binder of a tagged union: tag first, else a tree
                "AskForApprovalJson",                           // binder of an externally tagged union
                "McpElicitationPrimitiveSchemaJson",            // binder of an untagged union
                "SandboxModeJson",                              // binder of an open enum
                "ConfigJson",                                   // binder keeping additionalProperties
                "ThreadMetadataGitInfoUpdateParamsJson",        // binder of tri-state members
                "ServerNotificationJson",                       // binder of a method union
                "AgentMessageDisplay",                          // tag beside a member fixed in every variant
                "ServerRequestMethods");                        // a method retained from an older schema
    }

    static Path schemaDir() {
        for (Path p : List.of(Path.of("schema"), Path.of(".."), Path.of("../schema"))) {
            if (Files.isRegularFile(p.resolve("experimental/codex_app_server_protocol.schemas.json"))) {
                return p;
            }
        }
        throw new IllegalStateException("cannot find the schema directory from " + Path.of("").toAbsolutePath());
    }

    static Path goldenDir() {
        for (Path p : List.of(Path.of("src/test/resources/golden"), Path.of("schema/generator/src/test/resources/golden"))) {
            if (Files.isDirectory(p)) {
                return p;
            }
        }
        throw new IllegalStateException("cannot find the golden directory");
    }

    @BeforeAll
    static void generate() throws Exception {
        Path schema = schemaDir();
        generated = Generator.fromSchemaDir(schema, schema.resolve("codegen-overrides.json")).generate();
    }

    @ParameterizedTest
    @MethodSource("goldenFiles")
    void matchesGolden(String name) throws Exception {
        String actual = generated.get(name);
        assertThat(actual).as(name + " is generated").isNotNull();
        Path golden = goldenDir().resolve(name + ".java");
        if (Boolean.getBoolean("golden.update")) {
            Files.writeString(golden, actual);
        }
        assertThat(actual).isEqualTo(Files.readString(golden));
    }

    @org.junit.jupiter.api.Test
    void outputIsDeterministicAndComplete() throws Exception {
        Path schema = schemaDir();
        Map<String, String> again = Generator.fromSchemaDir(schema, schema.resolve("codegen-overrides.json")).generate();
        assertThat(again).isEqualTo(generated);
        assertThat(generated).hasSizeGreaterThan(900);
        for (Map.Entry<String, String> e : generated.entrySet()) {
            assertThat(e.getValue()).as(e.getKey()).startsWith(Generator.HEADER + "package dev.codexclient.protocol;\n");
        }
        // shadowed top-level types are written fully qualified
        assertThat(generated.get("ReviewDecision"))
                .contains("dev.codexclient.protocol.NetworkPolicyAmendment networkPolicyAmendment");
        assertThat(generated.get("ServerNotification"))
                .contains("dev.codexclient.protocol.McpServerEventStreamNotification params");
        // no generated type takes a java.lang name
        assertThat(generated).doesNotContainKey("Thread").containsKey("ThreadInfo");
    }
}
