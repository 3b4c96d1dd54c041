package dev.converge.provisioning.api;

import io.javalin.config.JavalinConfig;

/**
 * Something mounted on the API server besides its own routes (the MCP endpoint, approvals),
 * sharing its port, its tenant authentication and its JSON mapper.
 */
@FunctionalInterface
public interface ApiExtension {
    void configure(JavalinConfig config, ApiContext context);
}
