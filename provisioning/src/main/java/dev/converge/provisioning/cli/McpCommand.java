package dev.converge.provisioning.cli;

import dev.converge.provisioning.NodeOptions;
import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.mcp.McpOptions;
import dev.converge.provisioning.mcp.StdioMcpServer;
import dev.converge.provisioning.tenant.Tenant;
import dev.converge.store.Store;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code converge mcp}: the MCP tools over stdio for one tenant, whose token comes from the
 * environment. Standard output is the protocol: everything else the process prints (logs, stray
 * output) is sent to standard error. The node only enqueues; workers elsewhere do the work.
 */
@Command(name = "mcp", mixinStandardHelpOptions = true,
        description = "Serve the provisioning tools to an AI agent over MCP on stdin/stdout (tenant token from "
                + "the environment; logs go to stderr).")
public final class McpCommand implements Callable<Integer> {
    @Mixin
    ServiceOptions service = new ServiceOptions();

    @Option(names = "--tenant-token-env", defaultValue = "CONVERGE_TENANT_TOKEN",
            description = "Environment variable holding the tenant's bearer token (default: ${DEFAULT-VALUE}).")
    String tenantTokenEnv;

    @Option(names = "--check-url-loopback", description = "Let check_url contact loopback addresses (local demos only).")
    boolean checkUrlLoopback;

    private final UnaryOperator<String> env;

    public McpCommand() {
        this(System::getenv);
    }

    /** Reads the environment through {@code env} (tests and embedding; the CLI uses the process environment). */
    public McpCommand(UnaryOperator<String> env) {
        this.env = env;
    }

    @Override
    public Integer call() throws Exception {
        OutputStream protocol = new FileOutputStream(FileDescriptor.out);
        PrintStream stdout = System.out;
        System.setOut(System.err); // nothing but the protocol may reach stdout
        try {
            return serve(protocol);
        } finally {
            System.setOut(stdout);
        }
    }

    private int serve(OutputStream protocol) throws InterruptedException {
        String token = env.apply(tenantTokenEnv);
        if (token == null || token.isBlank()) {
            System.err.println("mcp: set " + tenantTokenEnv + " to the tenant's bearer token");
            return 2;
        }
        try (Store store = service.database.open()) {
            Provisioning p = Provisioning.start(store, service.config(null),
                    NodeOptions.defaults().withConcurrency(0).withMaintenance(false, false));
            try {
                Optional<Tenant> tenant = p.tenants().credentials().authenticate(token.strip())
                        .filter(c -> c.scope() == dev.converge.provisioning.access.Scope.AGENT).map(c -> c.tenant());
                if (tenant.isEmpty()) {
                    System.err.println("mcp: the token in " + tenantTokenEnv + " is not a tenant's token");
                    return 2;
                }
                System.err.println("mcp: serving tenant " + tenant.get().id() + " on stdio");
                StdioMcpServer.serve(p, tenant.get(), McpOptions.defaults().withLoopbackUrlChecks(checkUrlLoopback),
                        System.in, protocol);
                return 0;
            } finally {
                p.close();
            }
        }
    }
}
