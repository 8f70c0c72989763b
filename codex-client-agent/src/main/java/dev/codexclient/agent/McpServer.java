package dev.codexclient.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * An external MCP server codex connects to during a run, passed as the thread's {@code config.mcp_servers}: a
 * command codex starts (stdio) or a URL (streamable HTTP). Its tools appear to the model next to the run's dynamic
 * tools; a server whose name is also a dynamic tool's name is refused when the run is built.
 */
public final class McpServer {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private final String name;
    private final ObjectNode config;

    private McpServer(String name, ObjectNode config) {
        if (!NAME.matcher(Objects.requireNonNull(name, "name")).matches()) {
            throw new IllegalArgumentException("an MCP server name must match " + NAME.pattern() + ": " + name);
        }
        this.name = name;
        this.config = config;
    }

    /**
     * A server codex starts as a child process and talks to over stdio.
     *
     * @param name        the server's name, 1 to 64 letters, digits, {@code _} or {@code -}
     * @param command     the executable
     * @param args        its arguments
     * @param environment variables to set for it
     * @return the server
     */
    public static McpServer stdio(String name, String command, List<String> args, Map<String, String> environment) {
        Objects.requireNonNull(command, "command");
        ObjectNode c = JsonNodeFactory.instance.objectNode();
        c.put("command", command);
        List.copyOf(args).forEach(c.putArray("args")::add);
        if (!environment.isEmpty()) {
            ObjectNode env = c.putObject("env");
            new LinkedHashMap<>(environment).forEach(env::put);
        }
        return new McpServer(name, c);
    }

    /**
     * A server codex reaches over streamable HTTP.
     *
     * @param name the server's name, 1 to 64 letters, digits, {@code _} or {@code -}
     * @param url  its endpoint, {@code http} or {@code https}
     * @return the server
     */
    public static McpServer url(String name, URI url) {
        Objects.requireNonNull(url, "url");
        String scheme = url.getScheme();
        if (!"http".equalsIgnoreCase(scheme) && !"https".equalsIgnoreCase(scheme)) {
            throw new IllegalArgumentException("an MCP server URL must be http or https: " + url);
        }
        ObjectNode c = JsonNodeFactory.instance.objectNode();
        c.put("url", url.toString());
        return new McpServer(name, c);
    }

    /**
     * The server's name.
     *
     * @return the name, as the key in {@code mcp_servers}
     */
    public String name() {
        return name;
    }

    /**
     * The server's entry in {@code config.mcp_servers}.
     *
     * @return a copy of the JSON object
     */
    public JsonNode config() {
        return config.deepCopy();
    }

    @Override
    public String toString() {
        return "McpServer[" + name + "]";
    }
}
