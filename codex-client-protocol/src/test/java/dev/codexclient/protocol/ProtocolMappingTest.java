package dev.codexclient.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Targeted checks of the mapping rules that the round-trip test cannot see on its own. */
class ProtocolMappingTest {
    private static final ObjectMapper M = ProtocolJson.mapper();
    private static SchemaSamples schema;

    @BeforeAll
    static void load() throws Exception {
        schema = new SchemaSamples();
    }

    private static String json(Object v) throws Exception {
        return M.writeValueAsString(v);
    }

    private static JsonNode tree(String s) throws Exception {
        return M.readTree(s);
    }

    @Test
    void tristateKeepsAbsentNullAndValueApart() throws Exception {
        ThreadMetadataGitInfoUpdateParams absent = M.readValue("{}", ThreadMetadataGitInfoUpdateParams.class);
        ThreadMetadataGitInfoUpdateParams nul = M.readValue("{\"sha\":null}", ThreadMetadataGitInfoUpdateParams.class);
        ThreadMetadataGitInfoUpdateParams val = M.readValue("{\"sha\":\"x\"}", ThreadMetadataGitInfoUpdateParams.class);
        assertThat(absent.sha().isAbsent()).isTrue();
        assertThat(nul.sha().isNull()).isTrue();
        assertThat(val.sha()).isEqualTo(Tristate.of("x"));
        assertThat(json(absent)).isEqualTo("{}");
        assertThat(json(nul)).isEqualTo("{\"sha\":null}");
        assertThat(json(val)).isEqualTo("{\"sha\":\"x\"}");
        // a Java null in a Tristate component is treated as absent
        assertThat(json(new ThreadMetadataGitInfoUpdateParams(null, null, null))).isEqualTo("{}");
        ThreadMetadataGitInfoUpdateParams built = ThreadMetadataGitInfoUpdateParams.builder().branch("main")
                .sha(Tristate.ofNull()).build();
        assertThat(built.originUrl().isAbsent()).isTrue();
        assertThat(tree(json(built))).isEqualTo(tree("{\"branch\":\"main\",\"sha\":null}"));
    }

    @Test
    void nestedNullableIsTristateEvenForStringAliases() throws Exception {
        RecordComponent rc = component(CollaborationModeMask.class, "reasoningEffort");
        assertThat(rc.getGenericType().getTypeName()).isEqualTo("dev.codexclient.protocol.Tristate<java.lang.String>");
        CollaborationModeMask m = M.readValue("{\"name\":\"n\",\"reasoning_effort\":null}", CollaborationModeMask.class);
        assertThat(m.reasoningEffort().isNull()).isTrue();
        assertThat(json(m)).contains("\"reasoning_effort\":null");
    }

    @Test
    void requiredNullableIsAlwaysWritten() throws Exception {
        assertThat(json(new ThreadSectionMoveParams(null, null, "t"))).isEqualTo("{\"sectionId\":null,\"threadId\":\"t\"}");
        assertThatThrownBy(() -> ThreadSectionMoveParams.builder().threadId("t").build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("sectionId");
        assertThat(json(ThreadSectionMoveParams.builder().threadId("t").sectionId(null).build()))
                .isEqualTo("{\"sectionId\":null,\"threadId\":\"t\"}");
    }

    @Test
    void mapNullValuesSurvive() throws Exception {
        String in = "{\"command\":[\"ls\"],\"env\":{\"A\":\"1\",\"B\":null}}";
        CommandExecParams p = M.readValue(in, CommandExecParams.class);
        assertThat(p.env()).containsEntry("B", null);
        assertThat(tree(json(p)).get("env")).isEqualTo(tree("{\"A\":\"1\",\"B\":null}"));
    }

    @Test
    void unknownEnumValueNeverThrows() throws Exception {
        SandboxMode brandNew = M.readValue("\"brand-new\"", SandboxMode.class);
        assertThat(brandNew.known()).isEqualTo(SandboxMode.Known.UNRECOGNIZED);
        assertThat(brandNew.asString()).isEqualTo("brand-new");
        assertThat(brandNew).isEqualTo(SandboxMode.of("brand-new")).isNotEqualTo(SandboxMode.READ_ONLY);
        assertThat(M.readValue("\"read-only\"", SandboxMode.class)).isSameAs(SandboxMode.READ_ONLY);
        assertThat(SandboxMode.of("workspace-write")).isSameAs(SandboxMode.WORKSPACE_WRITE);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("x", M.readValue("[\"read-only\",\"nope\"]", SandboxMode[].class));
        assertThat((SandboxMode[]) m.get("x")).containsExactly(SandboxMode.READ_ONLY, SandboxMode.of("nope"));
    }

    @Test
    void externallyTaggedUnionsAreLossless() throws Exception {
        assertThat(M.readValue("\"acceptForSession\"", CommandExecutionApprovalDecision.class))
                .isEqualTo(CommandExecutionApprovalDecision.Simple.ACCEPT_FOR_SESSION);
        List<CommandExecutionApprovalDecision> list = List.of(
                new CommandExecutionApprovalDecision.AcceptWithExecpolicyAmendment(List.of("git", "push")),
                CommandExecutionApprovalDecision.Simple.DECLINE);
        assertThat(tree(json(list))).isEqualTo(
                tree("[{\"acceptWithExecpolicyAmendment\":{\"execpolicy_amendment\":[\"git\",\"push\"]}},\"decline\"]"));
        for (String unknown : List.of("\"newThing\"", "{\"newThing\":{\"a\":[1,2]}}")) {
            CommandExecutionApprovalDecision d = M.readValue(unknown, CommandExecutionApprovalDecision.class);
            assertThat(d).isInstanceOf(CommandExecutionApprovalDecision.Unrecognized.class);
            assertThat(json(d)).isEqualTo(unknown);
        }
        // available decisions are echoed back: an unknown one survives inside the params
        CommandExecutionRequestApprovalParams p = M.readValue("{\"itemId\":\"i\",\"threadId\":\"t\",\"turnId\":\"u\","
                + "\"availableDecisions\":[\"accept\",{\"future\":{\"x\":1}}]}", CommandExecutionRequestApprovalParams.class);
        assertThat(json(p.availableDecisions().get(1))).isEqualTo("{\"future\":{\"x\":1}}");
    }

    @Test
    void shadowedTopLevelTypesAreReferencedQualified() throws Exception {
        RecordComponent rc = component(ReviewDecision.NetworkPolicyAmendment.class, "networkPolicyAmendment");
        assertThat(rc.getType()).isEqualTo(NetworkPolicyAmendment.class);
        String in = "{\"network_policy_amendment\":{\"network_policy_amendment\":{\"action\":\"allow\",\"host\":\"h\"}}}";
        ReviewDecision d = M.readValue(in, ReviewDecision.class);
        assertThat(d).isInstanceOf(ReviewDecision.NetworkPolicyAmendment.class);
        assertThat(tree(json(d))).isEqualTo(tree(in));
        RecordComponent params = component(ServerNotification.McpServerEventStreamNotification.class, "params");
        assertThat(params.getType()).isEqualTo(McpServerEventStreamNotification.class);
    }

    @Test
    void codexErrorInfoPayloadWithoutRequiredMembers() throws Exception {
        CodexErrorInfo e = M.readValue("{\"httpConnectionFailed\":{}}", CodexErrorInfo.class);
        assertThat(e).isEqualTo(new CodexErrorInfo.HttpConnectionFailed(null));
        assertThat(json(e)).isEqualTo("{\"httpConnectionFailed\":{}}");
        assertThat(M.readValue("\"other\"", CodexErrorInfo.class)).isEqualTo(CodexErrorInfo.Simple.OTHER);
        assertThat(M.readValue("\"inferenceHookDenied\"", CodexErrorInfo.class))
                .isEqualTo(CodexErrorInfo.Simple.INFERENCE_HOOK_DENIED);
        assertThat(M.readValue("\"zz\"", CodexErrorInfo.class)).isInstanceOf(CodexErrorInfo.Unrecognized.class);
    }

    @Test
    void nestedExternalUnionsAndRealUnknownValues() throws Exception {
        SessionSource s = M.readValue("{\"subAgent\":{\"thread_spawn\":{\"depth\":1,\"parent_thread_id\":\"t\"}}}",
                SessionSource.class);
        assertThat(s).isInstanceOf(SessionSource.SubAgent.class);
        assertThat(((SessionSource.SubAgent) s).value()).isInstanceOf(SubAgentSource.ThreadSpawn.class);
        assertThat(M.readValue("\"unknown\"", SessionSource.class)).isEqualTo(SessionSource.Simple.UNKNOWN);
    }

    @Test
    void mcpElicitationVariantOrder() throws Exception {
        assertThat(M.readValue("{\"type\":\"string\",\"enum\":[\"a\"]}", McpElicitationPrimitiveSchema.class))
                .isInstanceOf(McpElicitationUntitledSingleSelectEnumSchema.class);
        assertThat(M.readValue("{\"type\":\"string\",\"enum\":[\"a\"],\"enumNames\":[\"A\"]}",
                McpElicitationPrimitiveSchema.class)).isInstanceOf(McpElicitationLegacyTitledEnumSchema.class);
        assertThat(M.readValue("{\"type\":\"string\",\"oneOf\":[{\"const\":\"a\",\"title\":\"A\"}]}",
                McpElicitationPrimitiveSchema.class)).isInstanceOf(McpElicitationTitledSingleSelectEnumSchema.class);
        assertThat(M.readValue("{\"type\":\"array\",\"items\":{\"type\":\"string\",\"enum\":[\"a\"]}}",
                McpElicitationPrimitiveSchema.class)).isInstanceOf(McpElicitationUntitledMultiSelectEnumSchema.class);
        assertThat(M.readValue("{\"type\":\"array\",\"items\":{\"anyOf\":[{\"const\":\"a\",\"title\":\"A\"}]}}",
                McpElicitationPrimitiveSchema.class)).isInstanceOf(McpElicitationTitledMultiSelectEnumSchema.class);
        assertThat(M.readValue("{\"type\":\"string\"}", McpElicitationPrimitiveSchema.class))
                .isInstanceOf(McpElicitationStringSchema.class);
        assertThat(M.readValue("{\"type\":\"integer\"}", McpElicitationPrimitiveSchema.class))
                .isInstanceOf(McpElicitationNumberSchema.class);
        assertThat(M.readValue("{\"type\":\"boolean\"}", McpElicitationPrimitiveSchema.class))
                .isInstanceOf(McpElicitationBooleanSchema.class);
        McpElicitationPrimitiveSchema odd = M.readValue("{\"type\":\"date\"}", McpElicitationPrimitiveSchema.class);
        assertThat(odd).isInstanceOf(McpElicitationPrimitiveSchema.Unrecognized.class);
        assertThat(json(odd)).isEqualTo("{\"type\":\"date\"}");
    }

    @Test
    void taggedUnionUnknownTagEchoesUnchanged() throws Exception {
        String in = "{\"type\":\"someNewItem\",\"id\":\"i\",\"startedAtMs\":5,\"deep\":{\"a\":[1,{\"b\":null}]}}";
        ThreadItem item = M.readValue(in, ThreadItem.class);
        assertThat(item).isInstanceOf(ThreadItem.Unrecognized.class);
        assertThat(item.type()).isEqualTo("someNewItem");
        assertThat(json(item)).isEqualTo(in);
        assertThat(json(List.of(item))).isEqualTo("[" + in + "]");
    }

    @Test
    void unionDeclaresTheMemberEveryVariantRequires() throws Exception {
        ThreadItem known = M.readValue("{\"type\":\"agentMessage\",\"id\":\"msg-1\",\"text\":\"hi\"}",
                ThreadItem.class);
        assertThat(known).isInstanceOf(ThreadItem.AgentMessage.class);
        assertThat(known.id()).isEqualTo("msg-1");
        // A newer server's variant answers from the object as read, and only a string counts as the id.
        assertThat(M.readValue("{\"type\":\"someNewItem\",\"id\":\"new-1\"}", ThreadItem.class).id())
                .isEqualTo("new-1");
        assertThat(M.readValue("{\"type\":\"someNewItem\"}", ThreadItem.class).id()).isNull();
        assertThat(M.readValue("{\"type\":\"someNewItem\",\"id\":7}", ThreadItem.class).id()).isNull();
        // Plain code, no reflection: the interface method is what each record component implements.
        assertThat(ThreadItem.class.getMethod("id").getReturnType()).isEqualTo(String.class);
        assertThat(ThreadItemsListAnchor.class.getMethod("itemId").getReturnType()).isEqualTo(String.class);
    }

    @Test
    void unionCommonFieldsAndFlattenedAlternatives() throws Exception {
        ThreadItem img = M.readValue("{\"type\":\"imageGeneration\",\"id\":\"i\",\"status\":\"done\",\"fileId\":\"f\","
                + "\"startedAtMs\":3}", ThreadItem.class);
        assertThat(img).isInstanceOf(ThreadItem.ImageGeneration.class);
        assertThat(img.startedAtMs()).isEqualTo(3L);
        assertThat(((ThreadItem.ImageGeneration) img).fileId()).isEqualTo("f");
        assertThat(((ThreadItem.ImageGeneration) img).result()).isNull();
        for (String in : List.of("{\"type\":\"image\",\"url\":\"u\"}", "{\"type\":\"image\",\"fileId\":\"f\"}")) {
            UserInput u = M.readValue(in, UserInput.class);
            assertThat(u).isInstanceOf(UserInput.Image.class);
            assertThat(tree(json(u))).isEqualTo(tree(in));
        }
        assertThat(names(UserInput.Image.class)).containsExactly("detail", "url", "fileId", "unknownMembers");
        McpServerElicitationRequestParams p = M.readValue("{\"mode\":\"openai/form\",\"serverName\":\"s\","
                + "\"threadId\":\"t\",\"message\":\"m\",\"requestedSchema\":{},\"_meta\":{\"k\":1}}",
                McpServerElicitationRequestParams.class);
        assertThat(p).isInstanceOf(McpServerElicitationRequestParams.OpenaiSlashForm.class);
        assertThat(p.serverName()).isEqualTo("s");
        assertThat(((McpServerElicitationRequestParams.OpenaiSlashForm) p).meta().get("k").asInt()).isEqualTo(1);
        assertThat(McpServerElicitationRequestParams.OpenaiUserVerification.class.isAnnotationPresent(Experimental.class))
                .isTrue();
        assertThat(McpServerElicitationRequestParams.Form.class.isAnnotationPresent(Experimental.class)).isFalse();
    }

    @Test
    void additionalPropertiesAreKept() throws Exception {
        String apps = "{\"_default\":{\"enabled\":true},\"github\":{\"enabled\":false}}";
        AppsConfig a = M.readValue(apps, AppsConfig.class);
        assertThat(a.additionalProperties()).containsKey("github");
        assertThat(a.additionalProperties().get("github")).isInstanceOf(AppConfig.class);
        assertThat(tree(json(a))).isEqualTo(tree(apps));
        String cfg = "{\"model\":\"m\",\"some_future_key\":{\"x\":[1]}}";
        assertThat(tree(json(M.readValue(cfg, Config.class)))).isEqualTo(tree(cfg));
    }

    @Test
    void methodUnionsDecodeWholeMessages() throws Exception {
        ServerNotification n = M.readValue("{\"method\":\"item/completed\",\"emittedAtMs\":5,\"params\":{\"threadId\":\"t\","
                + "\"turnId\":\"u\",\"completedAtMs\":1,\"item\":{\"type\":\"agentMessage\",\"id\":\"i\",\"text\":\"hi\"}}}",
                ServerNotification.class);
        assertThat(n).isInstanceOf(ServerNotification.ItemCompleted.class);
        assertThat(n.emittedAtMs()).isEqualTo(5L);
        assertThat(((ServerNotification.ItemCompleted) n).params().item()).isInstanceOf(ThreadItem.AgentMessage.class);

        String unknown = "{\"method\":\"brand/newNotification\",\"params\":{\"a\":1},\"emittedAtMs\":9}";
        ServerNotification u = M.readValue(unknown, ServerNotification.class);
        assertThat(u).isInstanceOf(ServerNotification.Unrecognized.class);
        assertThat(u.method()).isEqualTo("brand/newNotification");
        assertThat(u.emittedAtMs()).isEqualTo(9L);
        assertThat(json(u)).isEqualTo(unknown);

        ClientRequest logout = M.readValue("{\"id\":\"a\",\"method\":\"account/logout\"}", ClientRequest.class);
        assertThat(logout).isEqualTo(new ClientRequest.AccountLogout(RequestId.of("a")));
        assertThat(names(ClientRequest.AccountLogout.class)).containsExactly("id");
        assertThat(tree(json(logout))).isEqualTo(tree("{\"method\":\"account/logout\",\"id\":\"a\"}"));
        ClientRequest unknownReq = M.readValue("{\"id\":7,\"method\":\"x/y\"}", ClientRequest.class);
        assertThat(unknownReq.id()).isEqualTo(RequestId.of(7));

        ServerRequest sr = M.readValue("{\"id\":0,\"method\":\"item/tool/call\",\"params\":{\"arguments\":{},"
                + "\"callId\":\"c\",\"threadId\":\"t\",\"tool\":\"x\",\"turnId\":\"u\"}}", ServerRequest.class);
        assertThat(sr).isInstanceOf(ServerRequest.ItemToolCall.class);
        assertThat(M.readValue("{\"method\":\"initialized\"}", ClientNotification.class))
                .isInstanceOf(ClientNotification.Initialized.class);
    }

    @Test
    void requestIdsInsideRecordsAreStringsOrIntegers() throws Exception {
        String shape = "{\"threadId\":\"t\",\"requestId\":%s}";
        assertThat(M.readValue(shape.formatted("7"), ServerRequestResolvedNotification.class).requestId())
                .isEqualTo(RequestId.of(7));
        assertThat(M.readValue(shape.formatted("\"7\""), ServerRequestResolvedNotification.class).requestId())
                .isEqualTo(RequestId.of("7"));
        assertThat(M.readValue(shape.formatted("null"), ServerRequestResolvedNotification.class).requestId())
                .isNull();
        for (String wrong : new String[] {"1.5", "true", "[1]", "{\"id\":1}", "99999999999999999999"}) {
            assertThatThrownBy(() -> M.readValue(shape.formatted(wrong), ServerRequestResolvedNotification.class))
                    .as(wrong).isInstanceOf(com.fasterxml.jackson.core.JacksonException.class)
                    .hasMessageContaining("requestId");
        }
    }

    @Test
    void envelopeShapesAreToldApartStructurally() throws Exception {
        assertThat(M.readValue("{\"id\":1,\"method\":\"x\",\"params\":{}}", JSONRPCMessage.class))
                .isInstanceOf(JSONRPCRequest.class);
        assertThat(M.readValue("{\"method\":\"x\"}", JSONRPCMessage.class)).isInstanceOf(JSONRPCNotification.class);
        assertThat(M.readValue("{\"id\":\"a\",\"result\":{}}", JSONRPCMessage.class)).isInstanceOf(JSONRPCResponse.class);
        assertThat(M.readValue("{\"id\":1,\"error\":{\"code\":-32601,\"message\":\"m\"}}", JSONRPCMessage.class))
                .isInstanceOf(JSONRPCError.class);
        assertThat(M.readValue("[1]", JSONRPCMessage.class)).isInstanceOf(JSONRPCMessage.Unrecognized.class);
        assertThat(M.readValue("7", RequestId.class)).isEqualTo(RequestId.of(7));
        assertThat(M.readValue("\"next\"", ThreadItemsListCursor.class))
                .isEqualTo(new ThreadItemsListCursor.Text("next"));
        assertThat(M.readValue("{\"type\":\"item\",\"itemId\":\"i\"}", ThreadItemsListCursor.class))
                .isInstanceOf(ThreadItemsListAnchor.Item.class);
        assertThat(json(new FunctionCallOutputBody.Text("out"))).isEqualTo("\"out\"");
    }

    @Test
    void requestIdsOfTheTwoKindsNeverEqualEachOther() {
        assertThat(RequestId.of(7)).isEqualTo(RequestId.of(7)).hasSameHashCodeAs(RequestId.of(7))
                .isNotEqualTo(RequestId.of(8)).isNotEqualTo(RequestId.of("7"));
        assertThat(RequestId.of("7")).isEqualTo(RequestId.of("7")).hasSameHashCodeAs(RequestId.of("7"))
                .isNotEqualTo(RequestId.of("8")).isNotEqualTo(RequestId.of(7));
        assertThat(RequestId.of(7)).hasToString("7");
        assertThat(RequestId.of("7")).hasToString("\"7\"");
    }

    @Test
    void methodCountsAndTables() {
        assertThat(ClientRequestMethods.ALL).hasSize(189);
        // 10 from the schema plus currentTime/read, retained from 0.169.0 (schema/retained.json)
        assertThat(ServerRequestMethods.ALL).hasSize(11);
        assertThat(ServerRequestMethods.byMethod("currentTime/read")).contains(ServerRequestMethods.CURRENT_TIME_READ);
        // 87 from the schema plus the two raw-response notifications added by the overrides
        assertThat(ServerNotificationMethods.ALL).hasSize(89);
        assertThat(ServerNotificationMethods.ALL.stream().filter(d -> !d.method().startsWith("rawResponse")))
                .hasSize(87);
        assertThat(ClientNotificationMethods.ALL).hasSize(1);
        assertThat(ClientRequest.class.getPermittedSubclasses()).hasSize(190);
        assertThat(ServerRequest.class.getPermittedSubclasses()).hasSize(12);
        assertThat(ServerNotification.class.getPermittedSubclasses()).hasSize(90);
        assertThat(ClientNotification.class.getPermittedSubclasses()).hasSize(2);

        assertThat(ClientRequestMethods.ACCOUNT_LOGOUT.resultType()).isEqualTo(LogoutAccountResponse.class);
        assertThat(ClientRequestMethods.ACCOUNT_LOGOUT.paramsType()).isEqualTo(Void.class);
        assertThat(ClientRequestMethods.ACCOUNT_LOGOUT.paramsPresence()).isEqualTo(ParamsPresence.NONE);
        assertThat(ClientRequestMethods.ACCOUNT_RATE_LIMITS_READ.paramsPresence()).isEqualTo(ParamsPresence.OPTIONAL);
        assertThat(ClientRequestMethods.CONFIG_BATCH_WRITE.resultType()).isEqualTo(ConfigWriteResponse.class);
        assertThat(ClientRequestMethods.THREAD_START.resultType()).isEqualTo(ThreadStartResponse.class);
        assertThat(ClientRequestMethods.byMethod("thread/start")).contains(ClientRequestMethods.THREAD_START);
        assertThat(ClientRequestMethods.byMethod("nope")).isEmpty();
        assertThat(ServerRequestMethods.byMethod("item/tool/call").orElseThrow().resultType())
                .isEqualTo(DynamicToolCallResponse.class);
        assertThat(ServerNotificationMethods.byMethod("turn/completed").orElseThrow().paramsType())
                .isEqualTo(TurnCompletedNotification.class);
        assertThat(ClientNotificationMethods.INITIALIZED.paramsPresence()).isEqualTo(ParamsPresence.NONE);
    }

    @Test
    void experimentalFlagsMatchTheStableDiff() throws Exception {
        Set<String> stableMethods = new TreeSet<>();
        for (String u : List.of("ClientRequest", "ServerRequest", "ServerNotification", "ClientNotification")) {
            schema.stableDefs.get(u).get("oneOf")
                    .forEach(v -> stableMethods.add(u + ":" + v.get("properties").get("method").get("enum").get(0).asText()));
        }
        int experimentalMethods = 0;
        for (MethodDescriptor<?, ?> d : ClientRequestMethods.ALL) {
            assertThat(d.experimental()).as(d.method()).isEqualTo(!stableMethods.contains("ClientRequest:" + d.method()));
            experimentalMethods += d.experimental() ? 1 : 0;
        }
        for (MethodDescriptor<?, ?> d : ServerRequestMethods.ALL) {
            assertThat(d.experimental()).as(d.method()).isEqualTo(!stableMethods.contains("ServerRequest:" + d.method()));
            experimentalMethods += d.experimental() ? 1 : 0;
        }
        for (NotificationDescriptor<?> d : ServerNotificationMethods.ALL) {
            boolean extra = d.method().startsWith("rawResponse");
            assertThat(d.experimental()).as(d.method())
                    .isEqualTo(extra || !stableMethods.contains("ServerNotification:" + d.method()));
        }
        assertThat(experimentalMethods).isEqualTo(80);
        assertThat(ClientRequest.ThreadSample.class.isAnnotationPresent(Experimental.class)).isTrue();
        assertThat(ClientRequest.ThreadStart.class.isAnnotationPresent(Experimental.class)).isFalse();

        int experimentalTypes = 0;
        int experimentalFields = 0;
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, JsonNode> e : schema.defs.entrySet()) {
            Class<?> c = SchemaRoundTripTest.javaType(e.getKey());
            if (c == null || e.getKey().equals("RequestId")) {
                continue;
            }
            boolean exp = !schema.stableDefs.containsKey(e.getKey());
            if (c.isAnnotationPresent(Experimental.class) != exp) {
                wrong.add(e.getKey());
            }
            experimentalTypes += exp ? 1 : 0;
            if (c.isRecord() && !exp) {
                JsonNode stableProps = schema.stableDefs.get(e.getKey()).path("properties");
                for (RecordComponent rc : c.getRecordComponents()) {
                    com.fasterxml.jackson.annotation.JsonProperty jp = c.getDeclaredField(rc.getName())
                            .getAnnotation(com.fasterxml.jackson.annotation.JsonProperty.class);
                    if (jp == null) {
                        continue;
                    }
                    boolean fieldExp = !stableProps.has(jp.value());
                    if (rc.isAnnotationPresent(Experimental.class) != fieldExp) {
                        wrong.add(e.getKey() + "." + jp.value());
                    }
                    experimentalFields += fieldExp ? 1 : 0;
                }
            }
        }
        assertThat(wrong).isEmpty();
        assertThat(experimentalTypes).isEqualTo(172);
        assertThat(experimentalFields).isEqualTo(75);
        assertThat(component(ThreadStartParams.class, "dynamicTools").isAnnotationPresent(Experimental.class)).isTrue();
        assertThat(component(ThreadStartParams.class, "model").isAnnotationPresent(Experimental.class)).isFalse();
    }

    @Test
    void buildersNameMissingComponentsAndDefaultTristateToAbsent() throws Exception {
        assertThatThrownBy(() -> TurnStartParams.builder().build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("input").hasMessageContaining("threadId");
        TurnStartParams p = TurnStartParams.builder().threadId("t")
                .input(new UserInput.Text("hello", null)).build();
        assertThat(tree(json(p))).isEqualTo(tree("{\"threadId\":\"t\",\"input\":[{\"type\":\"text\",\"text\":\"hello\"}]}"));
        TurnStartParams changed = p.toBuilder().model("gpt").build();
        assertThat(changed.threadId()).isEqualTo("t");
        assertThat(changed.model()).isEqualTo("gpt");
        assertThat(changed.input()).isEqualTo(p.input());
        ThreadSectionMoveParams move = new ThreadSectionMoveParams(null, null, "t");
        assertThat(move.toBuilder().build()).isEqualTo(move);
        ProcessSpawnParams s = M.readValue("{\"command\":[\"x\"],\"processHandle\":\"h\",\"cwd\":\"/\"}",
                ProcessSpawnParams.class);
        assertThat(s.timeoutMs().isAbsent()).isTrue();
    }

    @Test
    void facadeRoutesThroughCall() throws Exception {
        List<Object[]> calls = new ArrayList<>();
        ClientRequestApi api = new ClientRequestApi() {
            @Override
            public <P, R> java.util.concurrent.CompletableFuture<R> call(MethodDescriptor<P, R> method, P params) {
                calls.add(new Object[] {method, params});
                return new java.util.concurrent.CompletableFuture<>();
            }
        };
        ThreadStartParams params = ThreadStartParams.builder().model("m").build();
        api.threadStart(params);
        api.accountLogout();
        api.accountRateLimitsRead();
        assertThat(calls.get(0)).containsExactly(ClientRequestMethods.THREAD_START, params);
        assertThat(calls.get(1)).containsExactly(ClientRequestMethods.ACCOUNT_LOGOUT, null);
        assertThat(calls.get(2)).containsExactly(ClientRequestMethods.ACCOUNT_RATE_LIMITS_READ, null);
        assertThat(ClientRequestApi.class.getMethod("threadSample", ThreadSampleParams.class)
                .isAnnotationPresent(Experimental.class)).isTrue();
    }

    private static RecordComponent component(Class<?> c, String name) {
        for (RecordComponent rc : c.getRecordComponents()) {
            if (rc.getName().equals(name)) {
                return rc;
            }
        }
        throw new AssertionError(c + " has no component " + name);
    }

    private static List<String> names(Class<?> c) {
        List<String> out = new ArrayList<>();
        for (RecordComponent rc : c.getRecordComponents()) {
            out.add(rc.getName());
        }
        return out;
    }
}
