package dev.converge.provisioning.mcp;

import java.time.Duration;

/**
 * How the MCP tools are set up.
 *
 * @param allowLoopbackUrlChecks whether {@code check_url} may contact loopback addresses (demo and
 *                               tests, whose sites run locally); off in production
 * @param urlCheckTimeout        the bound on {@code check_url}'s name lookup and its HEAD request
 */
public record McpOptions(boolean allowLoopbackUrlChecks, Duration urlCheckTimeout) {
    public McpOptions {
        if (urlCheckTimeout == null || urlCheckTimeout.isNegative() || urlCheckTimeout.isZero()
                || urlCheckTimeout.compareTo(Duration.ofSeconds(10)) > 0) {
            throw new IllegalArgumentException("urlCheckTimeout must be positive and at most 10s");
        }
    }

    public static McpOptions defaults() {
        return new McpOptions(false, Duration.ofSeconds(2));
    }

    public McpOptions withLoopbackUrlChecks(boolean allow) {
        return new McpOptions(allow, urlCheckTimeout);
    }
}
