package dev.converge.provisioning.mcp;

import dev.converge.provisioning.access.Scope;
import dev.converge.provisioning.access.Tenant;
import dev.converge.provisioning.api.ApiContext;
import dev.converge.provisioning.api.ApiExtension;
import dev.converge.provisioning.api.Authz;
import dev.converge.provisioning.api.ProblemType;
import dev.converge.provisioning.limits.Limits;
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
    private static final String SESSION = "Mcp-Session-Id";

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
            ServletHolder holder = new ServletHolder("mcp", new BearerGate(transport, context.authz(), context.service().limits(),
                    new McpSessions(options.sessionsPerTenant(), options.sessionIdle())));
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
        private final transient McpSessions sessions;

        BearerGate(HttpServlet transport, Authz authz, Limits limits, McpSessions sessions) {
            this.transport = transport;
            this.authz = authz;
            this.limits = limits;
            this.sessions = sessions;
        }

        @Override
        public void init(ServletConfig config) throws ServletException {
            super.init(config);
            transport.init(config);
        }

        @Override
        protected void service(HttpServletRequest req, HttpServletResponse resp) throws ServletException, IOException {
            Authz.Decision decision = authz.decide(req.getHeader("Authorization"), EnumSet.of(Scope.AGENT),
                    req.getRemoteAddr());
            if (decision.credential().isEmpty()) {
                // the API's own 401/403/429 (RFC 9457 problem, RFC 6750 challenge), so clients see one answer
                resp.setStatus(decision.status());
                decision.headers().forEach(resp::setHeader);
                resp.setContentType("application/problem+json");
                resp.getOutputStream().write(decision.body().getBytes(StandardCharsets.UTF_8));
                return;
            }
            Tenant tenant = decision.credential().get().tenant();
            OptionalLong wait = "POST".equals(req.getMethod()) ? limits.tryWrite(tenant.id()) : OptionalLong.empty();
            if (wait.isPresent()) {
                resp.setHeader("Retry-After", Long.toString(wait.getAsLong()));
                problem(resp, 429, ProblemType.RATE_LIMITED, "This tenant sent more requests than its rate allows. "
                        + "Retry after " + wait.getAsLong() + " s.");
                return;
            }
            String session = req.getHeader(SESSION);
            if (session != null && !sessions.use(session, tenant.id())) {
                // another tenant's session, or an expired or unknown one: the same answer, which says nothing
                problem(resp, 404, ProblemType.NOT_FOUND, "No such MCP session for this token. Initialize a new one.");
                return;
            }
            if (session == null && "POST".equals(req.getMethod()) && !sessions.mayOpen(tenant.id())) {
                resp.setHeader("Retry-After", "60");
                problem(resp, 429, ProblemType.RATE_LIMITED, "This tenant has too many open MCP sessions. Close one "
                        + "(DELETE /mcp) or let it expire.");
                return;
            }
            req.setAttribute(TENANT, tenant);
            TransportErrors answer = new TransportErrors(resp);
            transport.service(req, answer);
            answer.finish();
            String opened = resp.getHeader(SESSION);
            if (session == null && opened != null) {
                sessions.bind(opened, tenant.id());
            }
            if (session != null && "DELETE".equals(req.getMethod())) {
                sessions.end(session);
            }
        }

        private static void problem(HttpServletResponse resp, int status, ProblemType type, String detail)
                throws IOException {
            resp.setStatus(status);
            resp.setContentType("application/problem+json");
            resp.getOutputStream().write(("{\"type\":\"" + type.uri() + "\",\"title\":\"" + type.title()
                    + "\",\"status\":" + status + ",\"detail\":\"" + detail + "\"}").getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public void destroy() {
            transport.destroy();
        }
    }
}
