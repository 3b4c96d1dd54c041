package dev.converge.provisioning.extensions;

import dev.converge.provisioning.api.ApiExtension;
import dev.converge.provisioning.approval.ApprovalRoutes;
import dev.converge.provisioning.mcp.McpEndpoint;
import java.util.List;

/**
 * What the service's API server mounts besides its own routes: the MCP endpoint for agents, and
 * the approval routes through which a person permits what an agent may not do alone.
 */
public final class StandardExtensions {
    private StandardExtensions() {
    }

    public static List<ApiExtension> all() {
        return List.of(new McpEndpoint(), new ApprovalRoutes(), new dev.converge.provisioning.api.OperatorDashboard());
    }
}
