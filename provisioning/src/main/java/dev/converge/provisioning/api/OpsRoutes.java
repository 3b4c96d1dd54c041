package dev.converge.provisioning.api;

import dev.converge.store.Store;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ops routes: {@code /health} (does the database answer) and {@code /openapi.json}, open;
 * {@code /metrics} (Prometheus text) behind the operator credential, since every scrape costs
 * the database work and the counts describe every tenant's traffic.
 */
final class OpsRoutes {
    static final String HEALTH = "/health";
    static final String METRICS = "/metrics";
    static final String OPENAPI = "/openapi.json";
    static final String OPENAPI_RESOURCE = "openapi/openapi.json";
    private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
    private static final Logger log = LoggerFactory.getLogger(OpsRoutes.class);

    private final Store store;
    private final PrometheusMeterRegistry meters;
    private final ApiParts parts;
    private final String openApi;

    OpsRoutes(Store store, PrometheusMeterRegistry meters, ApiParts parts) {
        this.store = store;
        this.meters = meters;
        this.parts = parts;
        this.openApi = readOpenApi();
    }

    void register(RoutesConfig routes) {
        routes.get(HEALTH, this::health);
        routes.get(METRICS, parts.authz().operator(this::metrics));
        routes.get(OPENAPI, this::openApi);
    }

    private void health(Context ctx) {
        boolean up;
        try {
            up = store.withConnection(c -> c.isValid(2));
        } catch (RuntimeException e) {
            log.warn("health check: database unavailable: {}", e.getMessage());
            up = false;
        }
        if (!up) {
            throw new ApiProblem(ProblemType.SERVICE_UNAVAILABLE, "The database does not answer.")
                    .with("checks", Map.of("database", "unavailable")).header("Retry-After", "5");
        }
        parts.json(200, Map.of("status", "ok", "checks", Map.of("database", "ok")), Map.of()).send(ctx);
    }

    private void metrics(Context ctx) {
        ctx.contentType(PROMETHEUS_TEXT).result(meters.scrape());
    }

    private void openApi(Context ctx) {
        ctx.contentType(ApiResponse.JSON).result(openApi);
    }

    private static String readOpenApi() {
        try (InputStream in = OpsRoutes.class.getClassLoader().getResourceAsStream(OPENAPI_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the API description " + OPENAPI_RESOURCE + " is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
