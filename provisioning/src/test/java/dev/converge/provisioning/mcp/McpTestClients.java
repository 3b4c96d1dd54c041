package dev.converge.provisioning.mcp;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.Map;

/** The MCP SDK's own client against our server, as an agent would connect. */
public final class McpTestClients {
    private McpTestClients() {
    }

    /** A client of {@code /mcp} sending the tenant's bearer token on every request; initialized. */
    public static McpSyncClient http(int port, String bearerToken) {
        HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                .endpoint("/mcp")
                .httpRequestCustomizer((request, method, uri, body, context) -> {
                    if (bearerToken != null) {
                        request.header("Authorization", "Bearer " + bearerToken);
                    }
                })
                .build();
        McpSyncClient client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(30))
                .initializationTimeout(Duration.ofSeconds(10)).build();
        client.initialize();
        return client;
    }

    public static McpSchema.CallToolResult call(McpSyncClient client, String tool, Map<String, Object> args) {
        return client.callTool(new McpSchema.CallToolRequest(tool, args));
    }

    @SuppressWarnings("unchecked")
    public static Map<String, Object> structured(McpSchema.CallToolResult r) {
        return (Map<String, Object>) r.structuredContent();
    }

    public static String text(McpSchema.CallToolResult r) {
        return ((McpSchema.TextContent) r.content().get(0)).text();
    }

    public static String id(Map<String, Object> structured) {
        return (String) structured.get("site_id");
    }
}
