package dev.converge.cli;

import dev.converge.provisioning.mcp.StdioBridge;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code converge mcp}: the MCP tools over stdio, relayed to a running server's {@code /mcp} with
 * one tenant's agent token from the environment. It opens no database and holds no credential but
 * that token, so an agent host's MCP configuration cannot read any tenant's data, its own included,
 * except through the tools. Standard output is the protocol; everything else goes to stderr.
 */
@Command(name = "mcp", mixinStandardHelpOptions = true,
        description = "Serve the provisioning tools to an AI agent over MCP on stdin/stdout, relayed to a Converge "
                + "server with a tenant's agent token from the environment (logs go to stderr).")
public final class McpCommand implements Callable<Integer> {
    @Option(names = "--url", defaultValue = "${env:CONVERGE_URL:-http://127.0.0.1:8080}",
            description = "Base URL of the Converge server (default: ${DEFAULT-VALUE}).")
    String url;

    @Option(names = {"--token-env", "--tenant-token-env"}, defaultValue = "CONVERGE_AGENT_TOKEN",
            description = "Environment variable holding the tenant's agent token (default: ${DEFAULT-VALUE}).")
    String tokenEnv;

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
            String token = env.apply(tokenEnv);
            if (token == null || token.isBlank()) {
                System.err.println("mcp: set " + tokenEnv + " to the tenant's agent token (converge tenant token create "
                        + "--scope agent)");
                return 2;
            }
            URI server = ServerUrl.parse(url);
            System.err.println("mcp: relaying stdio to " + server.resolve("/mcp"));
            new StdioBridge(server, token.strip(), System.err).run(System.in, protocol);
            return 0;
        } finally {
            System.setOut(stdout);
        }
    }
}
