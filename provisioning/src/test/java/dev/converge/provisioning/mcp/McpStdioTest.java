package dev.converge.provisioning.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.lead.Lead;
import dev.converge.provisioning.lead.Leads;
import dev.converge.provisioning.tenant.Tenants;
import dev.converge.store.Store;
import dev.converge.store.StoreConfig;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code converge mcp} as an agent's host runs it: a child process speaking MCP on stdin/stdout,
 * driven by the MCP SDK's own stdio client. Its logs must not reach stdout, or the protocol breaks.
 */
class McpStdioTest {
    @TempDir
    Path dir;

    private static String java() {
        return ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString());
    }

    private record Seeded(String db, Tenants.Created tenant, Lead lead, String agentToken) {
    }

    /** A file database with a tenant and a lead, closed again so the child process can open it. */
    private Seeded seed() {
        String db = "jdbc:h2:file:" + dir.resolve("converge").toAbsolutePath();
        try (Store store = Store.open(StoreConfig.newBuilder().url(db).build())) {
            Provisioning.migrate(store);
            Tenants t0 = new Tenants(store);
            Tenants.Created t = t0.create("stdio");
            String agent = t0.credentials().issue(t.tenant().id(), dev.converge.provisioning.access.Scope.AGENT, null, "a")
                    .token();
            return new Seeded(db, t, new Leads(store).create(t.tenant().id(), "Ada", "ada@example.com"), agent);
        }
    }

    @Test
    void theStdioServerOffersTheToolsAndActsForTheTenantInItsEnvironment() {
        Seeded s = seed();
        ServerParameters params = ServerParameters.builder(java())
                .args("-cp", System.getProperty("java.class.path"), "dev.converge.provisioning.cli.Main", "mcp", "--db", s.db())
                .addEnvVar("CONVERGE_TENANT_TOKEN", s.agentToken())
                .build();
        StdioClientTransport transport = new StdioClientTransport(params, McpJsonDefaults.getMapper());
        List<String> stderr = new CopyOnWriteArrayList<>();
        transport.setStdErrorHandler(stderr::add);
        try (McpSyncClient client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(30))
                .initializationTimeout(Duration.ofSeconds(90)).build()) {
            client.initialize();
            List<McpSchema.Tool> tools = client.listTools().tools();
            assertThat(tools).extracting(McpSchema.Tool::name).containsExactlyInAnyOrder("check_url", "suggest_palettes",
                    "create_site", "get_site_status", "send_welcome_email", "delete_site");
            assertThat(tools).filteredOn(t -> t.name().equals("delete_site")).singleElement()
                    .satisfies(t -> assertThat(t.annotations().destructiveHint()).isTrue());

            Map<String, Object> args = Map.of("lead_id", s.lead().id(), "subdomain", "stdio-shop");
            McpSchema.CallToolResult created = client.callTool(new McpSchema.CallToolRequest("create_site", args));
            assertThat(created.isError()).as(McpTestClients.text(created)).isFalse();
            Map<String, Object> receipt = McpTestClients.structured(created);
            assertThat(receipt).containsEntry("outcome", "created").containsEntry("subscription_deadline", null);
            assertThat((String) receipt.get("subscription_deadline_note"))
                    .as("no trial window is configured: the agent is told to use its instructions, not a number")
                    .contains("use the window stated in your instructions").doesNotContainPattern("\\d+ days");
            Map<String, Object> again = McpTestClients.structured(
                    client.callTool(new McpSchema.CallToolRequest("create_site", args)));
            assertThat(again).containsEntry("outcome", "already_requested").containsEntry("site_id", receipt.get("site_id"));
        }
        assertThat(stderr).anyMatch(l -> l.contains("mcp: serving tenant " + s.tenant().tenant().id()));
    }

    @Test
    void withoutATenantTokenItRefusesToStartAndPrintsNothingOnStdout() throws Exception {
        ProcessBuilder pb = new ProcessBuilder(java(), "-cp", System.getProperty("java.class.path"),
                "dev.converge.provisioning.cli.Main", "mcp", "--db", "jdbc:h2:file:" + dir.resolve("none").toAbsolutePath());
        pb.environment().remove("CONVERGE_TENANT_TOKEN");
        Process p = pb.start();
        p.getOutputStream().close();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(2);
        assertThat(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isEmpty();
        assertThat(new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8)).contains("CONVERGE_TENANT_TOKEN");
    }
}
