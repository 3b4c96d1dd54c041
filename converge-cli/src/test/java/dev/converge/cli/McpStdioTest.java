package dev.converge.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.provisioning.ProvisioningFixture;
import dev.converge.provisioning.access.Scope;
import dev.converge.provisioning.api.ApiOptions;
import dev.converge.provisioning.api.ApiServer;
import dev.converge.provisioning.extensions.StandardExtensions;
import dev.converge.provisioning.lead.Lead;
import dev.converge.provisioning.mcp.McpTestClients;
import dev.converge.provisioning.tenant.Tenants;
import dev.converge.provisioning.validation.PublicId;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code converge mcp} as an agent's host runs it: a child process speaking MCP on stdin/stdout,
 * driven by the MCP SDK's own stdio client, relaying to a running server with only an agent token
 * in its environment (no database URL, no password). Its logs must not reach stdout.
 */
class McpStdioTest {
    private static ProvisioningFixture fixture;
    private static ApiServer api;

    @BeforeAll
    static void start() {
        fixture = new ProvisioningFixture();
        api = ApiServer.start(fixture.service(), ApiOptions.defaults(), StandardExtensions.all());
    }

    @AfterAll
    static void stop() {
        api.close();
        fixture.close();
    }

    private static String java() {
        return ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString());
    }

    private static StdioClientTransport bridge(String token, List<String> stderr) {
        ServerParameters params = ServerParameters.builder(java())
                .args("-cp", System.getProperty("java.class.path"), "dev.converge.cli.Main", "mcp",
                        "--url", "http://127.0.0.1:" + api.port())
                .addEnvVar("CONVERGE_AGENT_TOKEN", token)
                .build();
        StdioClientTransport transport = new StdioClientTransport(params, McpJsonDefaults.getMapper());
        transport.setStdErrorHandler(stderr::add);
        return transport;
    }

    @Test
    void theBridgeOffersTheServersToolsAndActsForTheTenantOfItsAgentToken() {
        Tenants.Created t = fixture.service().tenants().create("stdio");
        String agent = fixture.service().tenants().credentials().issue(t.tenant().id(), Scope.AGENT, null, "a").token();
        Lead lead = fixture.service().leads().create(t.tenant().id(), "Ada", "ada@example.com");
        List<String> stderr = new CopyOnWriteArrayList<>();
        try (McpSyncClient client = McpClient.sync(bridge(agent, stderr)).requestTimeout(Duration.ofSeconds(30))
                .initializationTimeout(Duration.ofSeconds(90)).build()) {
            client.initialize();
            List<McpSchema.Tool> tools = client.listTools().tools();
            assertThat(tools).extracting(McpSchema.Tool::name).containsExactlyInAnyOrder("check_url", "suggest_palettes",
                    "create_site", "get_site_status", "send_welcome_email", "delete_site");
            assertThat(tools).filteredOn(x -> x.name().equals("delete_site")).singleElement()
                    .satisfies(x -> assertThat(x.annotations().destructiveHint()).isTrue());

            Map<String, Object> args = Map.of("lead_id", lead.publicId(), "subdomain", "stdio-shop");
            McpSchema.CallToolResult created = client.callTool(new McpSchema.CallToolRequest("create_site", args));
            assertThat(created.isError()).as(McpTestClients.text(created)).isFalse();
            Map<String, Object> receipt = McpTestClients.structured(created);
            assertThat(receipt).containsEntry("outcome", "created");
            Map<String, Object> again = McpTestClients.structured(
                    client.callTool(new McpSchema.CallToolRequest("create_site", args)));
            assertThat(again).containsEntry("outcome", "already_requested").containsEntry("site_id", receipt.get("site_id"));
            String site = (String) receipt.get("site_id");
            assertThat(fixture.service().sites().idOf(t.tenant().id(), new PublicId.Ref(site, 0))
                    .flatMap(id -> fixture.service().sites().get(t.tenant().id(), id))).as("created for the token's tenant").isPresent();

            McpSchema.CallToolResult refused = client.callTool(new McpSchema.CallToolRequest("delete_site",
                    Map.of("site_id", site)));
            assertThat(refused.isError()).isTrue();
            assertThat(McpTestClients.structured(refused)).containsEntry("error", "approval_required");
        }
        assertThat(stderr).anyMatch(l -> l.contains("mcp: relaying stdio to"));
    }

    @Test
    void aTokenThatIsNotAnAgentsIsRefusedWithTheServersWords() {
        Tenants.Created t = fixture.service().tenants().create("stdio-service");
        List<String> stderr = new CopyOnWriteArrayList<>();
        try (McpSyncClient client = McpClient.sync(bridge(t.token(), stderr)).requestTimeout(Duration.ofSeconds(30))
                .initializationTimeout(Duration.ofSeconds(90)).build()) {
            assertThatThrownBy(client::initialize).hasStackTraceContaining("scope agent");
        }
        assertThat(stderr).anyMatch(l -> l.contains("403"));
    }

    @Test
    void withoutAnAgentTokenItRefusesToStartAndPrintsNothingOnStdout() throws Exception {
        ProcessBuilder pb = new ProcessBuilder(java(), "-cp", System.getProperty("java.class.path"),
                "dev.converge.cli.Main", "mcp", "--url", "http://127.0.0.1:" + api.port());
        pb.environment().remove("CONVERGE_AGENT_TOKEN");
        Process p = pb.start();
        p.getOutputStream().close();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(2);
        assertThat(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isEmpty();
        assertThat(new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8)).contains("CONVERGE_AGENT_TOKEN");
    }

    @Test
    void theCommandHasNoDatabaseOption() {
        var cl = dev.converge.cli.Main.commandLine().getSubcommands().get("mcp");
        assertThat(cl.getCommandSpec().options()).extracting(o -> o.longestName())
                .noneMatch(n -> n.contains("db") || n.contains("password"));
    }
}
