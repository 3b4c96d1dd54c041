package dev.converge.provisioning.mcp;

import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.tenant.Tenant;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

/**
 * The MCP tools over stdio for one tenant (newline-delimited JSON-RPC). The output stream carries
 * the protocol and nothing else: callers send every log line elsewhere. Serves until the input ends.
 */
public final class StdioMcpServer {
    private StdioMcpServer() {
    }

    public static void serve(Provisioning service, Tenant tenant, McpOptions options, InputStream in, OutputStream out)
            throws InterruptedException {
        CountDownLatch ended = new CountDownLatch(1);
        InputStream watched = new FilterInputStream(in) {
            @Override
            public int read() throws IOException {
                return ended(super.read());
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                try {
                    return ended(super.read(b, off, len));
                } catch (IOException e) {
                    ended.countDown();
                    throw e;
                }
            }

            private int ended(int n) {
                if (n < 0) {
                    ended.countDown();
                }
                return n;
            }
        };
        StdioServerTransportProvider transport = new StdioServerTransportProvider(McpJsonDefaults.getMapper(), watched, out);
        McpSyncServer server = new ProvisioningTools(service, options).build(McpServer.sync(transport),
                exchange -> Optional.of(tenant));
        try {
            ended.await();
        } finally {
            server.closeGracefully();
        }
    }
}
