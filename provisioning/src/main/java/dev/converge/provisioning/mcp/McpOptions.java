package dev.converge.provisioning.mcp;

import java.time.Duration;

/**
 * How the MCP tools are set up.
 *
 * @param allowLoopbackUrlChecks whether {@code check_url} may contact loopback addresses (demo and
 *                               tests, whose sites run locally); off in production
 * @param urlCheckTimeout        the bound on {@code check_url}'s name lookup and its HEAD request
 * @param sessionsPerTenant      open MCP sessions a tenant may hold at once
 * @param sessionIdle            how long an unused MCP session lives
 */
public record McpOptions(boolean allowLoopbackUrlChecks, Duration urlCheckTimeout, int sessionsPerTenant,
        Duration sessionIdle) {
    public McpOptions(boolean allowLoopbackUrlChecks, Duration urlCheckTimeout) {
        this(allowLoopbackUrlChecks, urlCheckTimeout, 50, Duration.ofMinutes(30));
    }

    public McpOptions {
        if (sessionsPerTenant < 1 || sessionIdle == null || sessionIdle.isNegative() || sessionIdle.isZero()) {
            throw new IllegalArgumentException("sessionsPerTenant must be at least 1 and sessionIdle positive");
        }
        if (urlCheckTimeout == null || urlCheckTimeout.isNegative() || urlCheckTimeout.isZero()
                || urlCheckTimeout.compareTo(Duration.ofSeconds(10)) > 0) {
            throw new IllegalArgumentException("urlCheckTimeout must be positive and at most 10s");
        }
    }

    public static McpOptions defaults() {
        return new McpOptions(false, Duration.ofSeconds(2));
    }

    public McpOptions withLoopbackUrlChecks(boolean allow) {
        return new McpOptions(allow, urlCheckTimeout, sessionsPerTenant, sessionIdle);
    }

    /** At most {@code perTenant} open sessions per tenant, each forgotten after {@code idle} unused. */
    public McpOptions withSessions(int perTenant, Duration idle) {
        return new McpOptions(allowLoopbackUrlChecks, urlCheckTimeout, perTenant, idle);
    }
}
