package dev.converge.provisioning.mcp;

import dev.converge.provisioning.api.ApiContext;
import dev.converge.provisioning.api.ApiExtension;
import dev.converge.provisioning.access.Scope;
import dev.converge.provisioning.api.Authz;
import dev.converge.provisioning.api.ProblemType;
import dev.converge.provisioning.limits.Limits;
import dev.converge.provisioning.tenant.Tenant;
import io.javalin.config.JavalinConfig;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.eclipse.jetty.ee10.servlet.ServletHolder;

/**
 * The MCP tools on the API server's own port at {@code /mcp} (streamable HTTP), for a tenant's
 * {@code agent} token only: a request without a valid token is answered 401, one with a token of
 * another scope 403, before the MCP transport sees it; every tool call acts for the tenant of the
 * request that carried it.
 */
public final class McpEndpoint implements ApiExtension {
    public static final String PATH = "/mcp";
    private static final String TENANT = "converge.tenant";

    private final McpOptions options;

    public McpEndpoint(McpOptions options) {
        this.options = options;
    }

    public McpEndpoint() {
        this(McpOptions.defaults());
    }

    @Override
    public void configure(JavalinConfig config, ApiContext context) {
        HttpServletStreamableServerTransportProvider transport = HttpServletStreamableServerTransportProvider.builder()
                .jsonMapper(McpJsonDefaults.getMapper())
                .mcpEndpoint(PATH)
                .maxRequestSize(256 * 1024) // the servlet is outside Javalin's body limit; tool calls are small
                .contextExtractor(request -> request.getAttribute(TENANT) instanceof Tenant t
                        ? McpTransportContext.create(Map.of(TENANT, t)) : McpTransportContext.EMPTY)
                .build();
        McpSyncServer server = new ProvisioningTools(context.service(), options).build(McpServer.sync(transport),
                exchange -> Optional.ofNullable(exchange.transportContext())
                        .map(c -> c.get(TENANT)).filter(Tenant.class::isInstance).map(Tenant.class::cast));
        config.jetty.modifyServletContextHandler(handler -> {
            ServletHolder holder = new ServletHolder("mcp", new BearerGate(transport, context.authz(), context.service().limits()));
            holder.setAsyncSupported(true); // the transport answers tool calls asynchronously
            handler.addServlet(holder, PATH);
        });
        config.events.serverStopping(server::closeGracefully);
    }

    /** Lets through only requests bearing a tenant's agent token, recording the tenant for the transport. */
    private static final class BearerGate extends HttpServlet {
        private final HttpServlet transport;
        private final transient Authz authz;
        private final transient Limits limits;

        BearerGate(HttpServlet transport, Authz authz, Limits limits) {
            this.transport = transport;
            this.authz = authz;
            this.limits = limits;
        }

        @Override
        public void init(ServletConfig config) throws ServletException {
            super.init(config);
            transport.init(config);
        }

        @Override
        protected void service(HttpServletRequest req, HttpServletResponse resp) throws ServletException, IOException {
            Authz.Decision decision = authz.decide(req.getHeader("Authorization"), EnumSet.of(Scope.AGENT));
            if (decision.credential().isEmpty()) {
                // the API's own 401/403 (RFC 9457 problem, RFC 6750 challenge), so clients see one answer
                resp.setStatus(decision.status());
                resp.setHeader("WWW-Authenticate", decision.challenge());
                resp.setContentType("application/problem+json");
                resp.getOutputStream().write(decision.body().getBytes(StandardCharsets.UTF_8));
                return;
            }
            Tenant tenant = decision.credential().get().tenant();
            OptionalLong wait = "POST".equals(req.getMethod()) ? limits.tryWrite(tenant.id()) : OptionalLong.empty();
            if (wait.isPresent()) {
                resp.setStatus(429);
                resp.setHeader("Retry-After", Long.toString(wait.getAsLong()));
                resp.setContentType("application/problem+json");
                resp.getOutputStream().write(("{\"type\":\"" + ProblemType.RATE_LIMITED.uri() + "\",\"title\":\""
                        + ProblemType.RATE_LIMITED.title() + "\",\"status\":429,\"detail\":\"This tenant sent more "
                        + "requests than its rate allows. Retry after " + wait.getAsLong() + " s.\"}")
                        .getBytes(StandardCharsets.UTF_8));
                return;
            }
            req.setAttribute(TENANT, tenant);
            transport.service(req, resp);
        }

        @Override
        public void destroy() {
            transport.destroy();
        }
    }
}
