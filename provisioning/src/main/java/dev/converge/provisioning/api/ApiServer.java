package dev.converge.provisioning.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.converge.provisioning.service.ProvisioningService;
import dev.converge.provisioning.idempotency.IdempotencyStore;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.json.JavalinJackson;
import io.javalin.router.Endpoint;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.server.AbstractConnector;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.util.BlockingArrayQueue;
import org.eclipse.jetty.util.component.LifeCycle;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The provisioning service's HTTP API (Javalin on Jetty): JSON in and out, RFC 9457 problems,
 * bearer tokens per tenant, and {@code Idempotency-Key} on the requests that create. Routes are
 * grouped by concern ({@link LeadRoutes}, {@link SiteRoutes}, {@link OrphanRoutes},
 * {@link OpsRoutes}); extensions (the MCP endpoint) are mounted on the same server with the same
 * authentication and JSON mapper. Everything under {@code /v1} requires a token.
 */
public final class ApiServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ApiServer.class);
    /** How often the leaves' inventories are compared with the ledger for {@code GET /v1/orphans}. */
    static final java.time.Duration ORPHAN_SCAN_EVERY = java.time.Duration.ofMinutes(10);

    private final Javalin app;
    private final ScheduledExecutorService scanner;
    private final OrphanRoutes orphans;

    private ApiServer(Javalin app, ScheduledExecutorService scanner, OrphanRoutes orphans) {
        this.app = app;
        this.scanner = scanner;
        this.orphans = orphans;
    }

    public static ApiServer start(ProvisioningService service, ApiOptions options, List<ApiExtension> extensions) {
        Objects.requireNonNull(service, "service");
        Objects.requireNonNull(options, "options");
        List<ApiExtension> mounted = List.copyOf(extensions);
        ObjectMapper json = ApiJson.mapper();
        Authz auth = new Authz(service.tenants().credentials(), json, new AuthFailures(options.authFailuresPerMinute()));
        WriteLimits writes = new WriteLimits(service.limits());
        ApiContext context = new ApiContext(service, auth, json);
        IdempotencyStore keys = new IdempotencyStore(service.store());
        Problems problems = new Problems(json);
        ApiParts parts = new ApiParts(json, new JsonBody(json, options.maxBodyBytes()),
                new IdempotentRequests(keys, json, problems, service.config().idempotencyTtl(), options.inFlightTimeout()), auth, writes);
        HttpMetrics metrics = new HttpMetrics(service.meters());
        io.micrometer.core.instrument.FunctionCounter.builder("converge.api.token.lookups", service.tenants().credentials(),
                        c -> c.lookups())
                .description("Bearer tokens looked up in the database (cache misses): what unknown tokens cost")
                .register(service.meters());
        OpsRoutes ops = new OpsRoutes(service.store(), service.meters(), service.engine().recurring(), parts);
        OrphanRoutes orphans = new OrphanRoutes(() -> service.resources().all(), service.engine().ledger(),
                service.sites()::publicIdOf, parts);

        Javalin app = Javalin.create(cfg -> {
            server(cfg, options);
            cfg.jsonMapper(new JavalinJackson(json, false));
            cfg.requestLogger.http(metrics::record);
            problems.register(cfg.routes);
            RequestTracing.register(cfg.routes);
            cfg.routes.beforeMatched("/v1/*", auth::authenticated);
            cfg.routes.beforeMatched("/v1/*", writes::rate);
            new LeadRoutes(service.leads(), parts).register(cfg.routes);
            new SiteRoutes(service.sites(), parts).register(cfg.routes);
            new ConversationRoutes(service.conversations(), parts).register(cfg.routes);
            orphans.register(cfg.routes);
            ops.register(cfg.routes);
            new HandRoutes(service.hand(), service.sites(), parts).register(cfg.routes);
            for (ApiExtension extension : mounted) {
                extension.configure(cfg, context);
            }
        });
        try {
            app.start();
        } catch (RuntimeException e) {
            app.stop();
            throw e;
        }
        // expired idempotency keys are deleted by the engine's recurring job pv.purge-expired, not here
        ScheduledExecutorService scanner = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "converge-api-maintenance");
            t.setDaemon(true);
            return t;
        });
        scanner.scheduleWithFixedDelay(() -> scanOrphans(orphans), 0, ORPHAN_SCAN_EVERY.toMillis(), TimeUnit.MILLISECONDS);
        log.info("API listening on http://{}:{}", options.host(), app.port());
        return new ApiServer(app, scanner, orphans);
    }

    private static void server(JavalinConfig cfg, ApiOptions options) {
        cfg.startup.showJavalinBanner = false;
        cfg.startup.showOldJavalinVersionWarning = false;
        cfg.jetty.host = options.host();
        cfg.jetty.port = options.port();
        // our own reader enforces the limit with a 413 problem; this bounds anything else that reads a body
        cfg.http.maxRequestSize = options.maxBodyBytes();
        // bounded everywhere: a flood waits in a queue of known size, then is refused, instead of growing the heap
        QueuedThreadPool threads = new QueuedThreadPool(200, 8, 60_000, new BlockingArrayQueue<>(options.requestQueue()));
        threads.setName("converge-api");
        cfg.jetty.threadPool = threads;
        cfg.jetty.modifyServer(server -> {
            server.addBean(new NetworkConnectionLimit(options.maxConnections(), server));
            ConnectionGuard guard = new ConnectionGuard(options.connectionsPerAddress(), options.requestDeadline(),
                    server.getScheduler());
            server.addEventListener(new LifeCycle.Listener() {
                @Override
                public void lifeCycleStarting(LifeCycle event) {
                    for (Connector c : server.getConnectors()) {
                        if (c instanceof AbstractConnector a) {
                            a.setIdleTimeout(options.idleTimeout().toMillis());
                            a.addBean(guard);
                        }
                    }
                }
            });
        });
    }

    private static void scanOrphans(OrphanRoutes orphans) {
        try {
            orphans.scan();
        } catch (RuntimeException e) {
            log.warn("the orphan scan failed: {}", e.getMessage());
        }
    }

    /** Scans for orphans now (tests; the server scans on its own schedule). */
    void scanOrphansNow() {
        orphans.scan();
    }

    /** The port the server listens on (the one chosen when the options said 0). */
    public int port() {
        return app.port();
    }

    /** Every HTTP route the server registered, as {@code "GET /v1/sites/{id}"}: what openapi.json must describe. */
    public List<String> routes() {
        return app.unsafe.internalRouter.allHttpHandlers().stream()
                .map(parsed -> parsed.endpoint)
                .filter(e -> e.method.isHttpMethod())
                .map(ApiServer::describe)
                .toList();
    }

    private static String describe(Endpoint e) {
        return e.method.name() + " " + e.path;
    }

    @Override
    public void close() {
        scanner.shutdownNow();
        app.stop();
    }
}
