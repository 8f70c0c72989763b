package dev.codexclient.internal.requests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.codexclient.ApprovalPolicy;
import dev.codexclient.DynamicTool;
import dev.codexclient.ToolResult;
import dev.codexclient.internal.Redactor;
import dev.codexclient.protocol.ChatgptAuthTokensRefreshResponse;
import dev.codexclient.protocol.ServerRequestMethods;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class RequestHandlerRegistryTest {
    private static final String COMMAND = ServerRequestMethods.ITEM_COMMAND_EXECUTION_REQUEST_APPROVAL.method();

    @Test
    void aKindPolicyAndATypedHandlerOfOneMethodReplaceEachOther() {
        RequestHandlerRegistry registry = new RequestHandlerRegistry();
        registry.kindApproval(COMMAND, ApprovalPolicy.acceptAll());
        registry.handler(ServerRequestMethods.ITEM_COMMAND_EXECUTION_REQUEST_APPROVAL,
                p -> CompletableFuture.completedFuture(null));
        assertThat(registry.handlers().kindApprovals()).doesNotContainKey(COMMAND);
        assertThat(registry.handlers().routes()).containsKey(COMMAND);

        registry.kindApproval(COMMAND, ApprovalPolicy.declineAll());
        assertThat(registry.handlers().routes()).doesNotContainKey(COMMAND);
        assertThat(registry.handlers().kindApprovals()).containsKey(COMMAND);
    }

    @Test
    void aSecondToolOfOneNameIsRefusedAndTheFirstKept() {
        RequestHandlerRegistry registry = new RequestHandlerRegistry();
        DynamicTool first = tool("lookup");
        registry.tool(first);
        registry.tool(tool("other"));
        assertThatThrownBy(() -> registry.tool(tool("lookup")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lookup");
        assertThat(registry.toolNames()).containsExactly("lookup", "other");
        assertThat(registry.handlers().tools()).first().isSameAs(first);
    }

    @Test
    void whatWasCollectedDoesNotChangeWithLaterRegistrations() {
        RequestHandlerRegistry registry = new RequestHandlerRegistry();
        RequestHandlers before = registry.handlers();
        registry.rawHandler("x/new", params -> CompletableFuture.completedFuture(null));
        registry.tool(tool("lookup"));
        assertThat(before.rawRoutes()).isEmpty();
        assertThat(before.tools()).isEmpty();
        assertThat(registry.handlers().rawRoutes()).containsKey("x/new");
    }

    @Test
    void aRefreshedAccessTokenIsMaskedFromThenOn() throws Exception {
        Redactor redactor = new Redactor();
        RequestHandlerRegistry registry = new RequestHandlerRegistry();
        registry.tokenRefresh(p -> CompletableFuture.completedFuture(
                ChatgptAuthTokensRefreshResponse.builder().accessToken("fresh-token-123").chatgptAccountId("account")
                        .build()), redactor);
        assertThat(redactor.isRegistered("fresh-token-123")).isFalse();

        ServerRequestRouter.Route<?, ?> route = registry.handlers().routes()
                .get(ServerRequestMethods.ACCOUNT_CHATGPT_AUTH_TOKENS_REFRESH.method());
        assertThat(route).isNotNull();
        route.invoke(new ObjectMapper(), null).toCompletableFuture().get();
        assertThat(redactor.isRegistered("fresh-token-123")).isTrue();
    }

    private static DynamicTool tool(String name) {
        return DynamicTool.ofJson(name, "a tool", JsonNodeFactory.instance.objectNode(),
                args -> ToolResult.text("ok"));
    }
}
