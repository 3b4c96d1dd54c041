package dev.converge.provisioning.api;

import dev.converge.recurring.RecurringJobs;
import dev.converge.recurring.RecurringView;
import dev.converge.store.Store;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ops routes: {@code /health} (does the database answer) and {@code /openapi.json}, open;
 * {@code /metrics} (Prometheus text) behind the operator credential, since every scrape costs
 * the database work and the counts describe every tenant's traffic; {@code /v1/ops/recurring} (the
 * engine's recurring jobs, their last and next slots), behind the operator credential too.
 */
final class OpsRoutes {
    static final String HEALTH = "/health";
    static final String METRICS = "/metrics";
    static final String OPENAPI = "/openapi.json";
    static final String RECURRING = "/v1/ops/recurring";
    static final String OPENAPI_RESOURCE = "openapi/openapi.json";
    private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
    private static final Logger log = LoggerFactory.getLogger(OpsRoutes.class);

    private final Store store;
    private final PrometheusMeterRegistry meters;
    private final RecurringJobs recurring;
    private final ApiParts parts;
    private final String openApi;

    OpsRoutes(Store store, PrometheusMeterRegistry meters, RecurringJobs recurring, ApiParts parts) {
        this.store = store;
        this.meters = meters;
        this.recurring = recurring;
        this.parts = parts;
        this.openApi = readOpenApi();
    }

    void register(RoutesConfig routes) {
        routes.get(HEALTH, this::health);
        routes.get(METRICS, parts.authz().operator(this::metrics));
        routes.get(OPENAPI, this::openApi);
        routes.get(RECURRING, parts.authz().operator(this::recurring));
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

    /** Each recurring job as the store last recorded it (one small query per job), and its next slot. */
    private void recurring(Context ctx) {
        parts.json(200, Map.of("items", recurring.list().stream().map(OpsRoutes::recurring).toList()), Map.of()).send(ctx);
    }

    private static Map<String, Object> recurring(RecurringView v) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", v.name());
        m.put("job_type", v.jobType());
        m.put("queue", v.queue());
        m.put("schedule", v.schedule());
        m.put("missed_slots", v.missedSlots().name().toLowerCase(Locale.ROOT));
        m.put("last_slot", text(v.lastSlot()));
        m.put("last_job_id", v.lastJobId());
        m.put("skipped", v.skipped());
        m.put("next_slot", text(v.nextSlot()));
        return m;
    }

    private static String text(Instant t) {
        return t == null ? null : t.toString();
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
