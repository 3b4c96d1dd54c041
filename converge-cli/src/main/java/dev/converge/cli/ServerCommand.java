package dev.converge.cli;

import dev.converge.provisioning.NodeOptions;
import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.config.ProvisioningConfig;
import dev.converge.provisioning.api.ApiOptions;
import dev.converge.provisioning.api.ApiServer;
import dev.converge.provisioning.options.DurationConverter;
import dev.converge.provisioning.options.NodeFlags;
import dev.converge.provisioning.options.ServiceOptions;
import dev.converge.store.Store;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code converge server}: the HTTP API (and MCP endpoint) plus workers, watchdog and reaper, until stopped. */
@Command(name = "server", mixinStandardHelpOptions = true,
        description = "Serve the HTTP API and the MCP endpoint, and work the queue, until stopped (Ctrl-C, SIGTERM).")
public final class ServerCommand implements Callable<Integer> {
    @Mixin
    ServiceOptions service = new ServiceOptions();

    @Mixin
    NodeFlags node = new NodeFlags();

    @Mixin
    ModelFlags model = new ModelFlags();

    @Option(names = "--port", defaultValue = "8080", description = "HTTP port (default ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Bind address (default ${DEFAULT-VALUE}).")
    String host;

    @Option(names = "--no-workers", description = "Serve only; leave the queue to worker processes.")
    boolean noWorkers;

    @Option(names = "--in-flight-timeout", hidden = true, converter = DurationConverter.class,
            description = "An Idempotency-Key claim unfinished after this is presumed abandoned (default 1m).")
    java.time.Duration inFlightTimeout;

    @Option(names = "--max-connections", defaultValue = "2000", description = "Connections open at once (default "
            + "${DEFAULT-VALUE}); at the limit no more are accepted: new ones wait in the kernel's backlog until one closes.")
    int maxConnections;

    @Option(names = "--request-queue", defaultValue = "2000", description = "Requests waiting for a worker thread "
            + "(default ${DEFAULT-VALUE}); beyond it a request's connection is closed at once.")
    int requestQueue;

    @Option(names = "--idle-timeout", defaultValue = "30s", converter = DurationConverter.class, description = "A "
            + "connection that sends nothing for this long is closed (default ${DEFAULT-VALUE}; 100ms to 1h).")
    java.time.Duration idleTimeout;

    @Option(names = "--address-share", defaultValue = "10", description = "The percentage of --max-connections one "
            + "client address may hold (default ${DEFAULT-VALUE}); a connection beyond it is closed as it opens. "
            + "Behind a reverse proxy, where every connection comes from the proxy, set 100.")
    int addressShare;

    @Option(names = "--request-deadline", defaultValue = "10s", converter = DurationConverter.class, description = "A "
            + "request's headers and body must arrive within this once its first byte has; a client that trickles "
            + "them is closed (default ${DEFAULT-VALUE}; 100ms to 10m).")
    java.time.Duration requestDeadline;

    @Option(names = "--auth-failures-per-minute", defaultValue = "30", description = "Requests from one client address "
            + "that may fail authentication within a minute (default ${DEFAULT-VALUE}); beyond it the address is "
            + "answered 429 before its token is looked at. A client with a valid token is never limited by this.")
    int authFailuresPerMinute;

    @Override
    public Integer call() throws InterruptedException {
        CountDownLatch stop = new CountDownLatch(1);
        ApiOptions api0 = apiOptions(); // bad limits refused before anything opens
        NodeOptions options = node.options(noWorkers ? 0 : node.concurrency()); // bad flags refused before anything opens
        // the links it gives out name where it listens, unless --public-url says where clients reach it
        service.defaultPublicUrl("http://" + ("0.0.0.0".equals(host) || "::".equals(host) ? "localhost" : host) + ":" + port);
        ProvisioningConfig config = service.config(); // a missing leaf token is refused before anything opens
        var chat = model.settings();
        try (Store store = service.database.open();
                Provisioning p = Provisioning.start(store, config, options, chat);
                ApiServer api = ApiServer.start(p, api0, dev.converge.provisioning.extensions.StandardExtensions.all())) {
            Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "converge-stop"));
            System.out.println("converge server listening on http://" + host + ":" + api.port() + " (node "
                    + p.engine().nodeId() + ", store " + store + ")");
            stop.await();
            System.out.println("converge server stopping: finishing or giving back the jobs it holds");
        }
        return 0;
    }

    ApiOptions apiOptions() {
        ApiOptions o = ApiOptions.defaults().withHost(host).withPort(port)
                .withJetty(maxConnections, requestQueue, idleTimeout)
                .withConnectionBounds(addressShare, requestDeadline)
                .withAuthFailuresPerMinute(authFailuresPerMinute);
        return inFlightTimeout == null ? o : o.withInFlightTimeout(inFlightTimeout);
    }
}
