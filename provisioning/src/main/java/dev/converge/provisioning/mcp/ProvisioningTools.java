package dev.converge.provisioning.mcp;

import dev.converge.provisioning.service.ProvisioningService;
import dev.converge.provisioning.access.Tenant;
import dev.converge.provisioning.approval.Approvals;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The provisioning service's tools for agents, and the MCP server that offers them on a
 * transport. Minting approvals is deliberately not among them: only a person may do that.
 */
public final class ProvisioningTools {
    static final String INSTRUCTIONS = "Tools of the Converge site-provisioning service. Each tool declares what "
            + "happens if it runs twice, and its annotations say so: check_url, suggest_palettes and get_site_status "
            + "only read; create_site is idempotent by its unique subdomain (calling it again for the same subdomain "
            + "and lead returns the same site, never a second one); send_welcome_email sends at most one email per "
            + "permission a person granted; delete_site runs only with a one-time approval that a person mints. "
            + "Nothing is retried for you: each call runs once and reports what happened. Results are receipts: "
            + "what was created, where it will be, what to do next and by when. Deadlines come from the service's "
            + "configuration; when a receipt says none is configured, use the window stated in your instructions "
            + "and never state a duration of your own.";

    private final List<SiteTool> tools;
    private final ToolRunner runner;

    public ProvisioningTools(ProvisioningService service, McpOptions options) {
        UrlProbe probe = new UrlProbe(service.config().baseDomain(), options.allowLoopbackUrlChecks(),
                options.urlCheckTimeout());
        this.tools = List.of(
                CheckUrlTool.declaration(service, probe),
                SuggestPalettesTool.declaration(),
                CreateSiteTool.declaration(service),
                SiteStatusTool.declaration(service),
                WelcomeEmailTool.declaration(service),
                DeleteSiteTool.declaration(service));
        this.runner = new ToolRunner(new Approvals(service.store()), service.sites()::idOf);
    }

    public List<SiteTool> tools() {
        return tools;
    }

    /** The tools as MCP specifications, each call acting for the tenant the exchange resolves to. */
    public List<McpServerFeatures.SyncToolSpecification> specifications(
            Function<McpSyncServerExchange, Optional<Tenant>> tenantOf) {
        return tools.stream().map(t -> McpServerFeatures.SyncToolSpecification.builder()
                .tool(t.tool())
                .callHandler((exchange, request) -> runner.run(t, tenantOf.apply(exchange), request.arguments()).toMcp())
                .build()).toList();
    }

    /** Configures an MCP server specification with these tools; our own validation names the field at fault. */
    public <S extends McpServer.SyncSpecification<S>> McpSyncServer build(McpServer.SyncSpecification<S> spec,
            Function<McpSyncServerExchange, Optional<Tenant>> tenantOf) {
        return spec.serverInfo("converge-provisioning", "0.1.0")
                .instructions(INSTRUCTIONS)
                .jsonMapper(McpJsonDefaults.getMapper())
                .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
                .validateToolInputs(false)
                .tools(specifications(tenantOf))
                .build();
    }
}
