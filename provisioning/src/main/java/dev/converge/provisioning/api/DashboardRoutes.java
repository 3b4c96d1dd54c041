package dev.converge.provisioning.api;

import dev.converge.flow.Compensation;
import dev.converge.flow.FlowEvent;
import dev.converge.flow.FlowView;
import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.dashboard.DashboardQueries;
import dev.converge.provisioning.dashboard.OverviewCache;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The operators' dashboard on the API server: the page and its two assets at {@code /ui} (open:
 * they hold no data), and its JSON under {@code /v1/dashboard}, for the operator token only. The
 * page keeps the token in sessionStorage and sends it as {@code Authorization: Bearer}, like any
 * API client; it polls (an EventSource cannot send that header). Every asset comes from the jar.
 */
public final class DashboardRoutes implements ApiExtension {
    static final String PAGE = "/ui";
    static final String API = "/v1/dashboard";
    /** How old the overview's counts may be: the page polls about this often. */
    static final Duration OVERVIEW_MAX_AGE = Duration.ofSeconds(2);
    /** An entry claimed this long is highlighted: its job is slow, or gone and waiting for the reaper. */
    static final Duration LONG_CLAIMED = Duration.ofMinutes(5);
    private static final Map<String, String> ASSETS = Map.of(
            PAGE, "text/html; charset=utf-8",
            PAGE + "/dashboard.js", "text/javascript; charset=utf-8",
            PAGE + "/dashboard.css", "text/css; charset=utf-8");
    /** Only our own assets and our own origin; no inline script, no framing. */
    private static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
            + " connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

    @Override
    public void configure(JavalinConfig config, ApiContext context) {
        Provisioning service = context.service();
        DashboardQueries queries = new DashboardQueries(service.store(), LONG_CLAIMED);
        OverviewCache overview = new OverviewCache(queries, service.store(), service.engine(), OVERVIEW_MAX_AGE);
        Authz authz = context.authz();
        for (Map.Entry<String, String> asset : ASSETS.entrySet()) {
            byte[] body = asset(asset.getKey());
            config.routes.get(asset.getKey(), ctx -> ctx.contentType(asset.getValue())
                    .header("Content-Security-Policy", CSP).header("X-Content-Type-Options", "nosniff")
                    .header("Referrer-Policy", "no-referrer").header("Cache-Control", "no-cache").result(body));
        }
        new DashboardActions(service, context.json()).register(config.routes, authz);
        config.routes.get(API + "/overview", authz.operator(ctx -> ctx.json(overview.get())));
        config.routes.get(API + "/jobs", authz.operator(ctx -> ctx.json(Map.of("items",
                queries.jobs(param(ctx, "queue"), param(ctx, "state"), param(ctx, "type"), longParam(ctx, "before"))))));
        config.routes.get(API + "/flows", authz.operator(ctx -> ctx.json(Map.of("items",
                queries.flows(param(ctx, "state"))))));
        config.routes.get(API + "/flows/{id}", authz.operator(ctx -> flow(ctx, service, queries)));
        config.routes.get(API + "/ledger", authz.operator(ctx -> {
            List<Map<String, Object>> items = queries.ledger(param(ctx, "kind"), param(ctx, "state"));
            items.forEach(DashboardRoutes::explain);
            ctx.json(Map.of("items", items, "long_claimed_minutes", LONG_CLAIMED.toMinutes()));
        }));
    }

    private static void flow(Context ctx, Provisioning service, DashboardQueries queries) {
        long id = PathIds.id(ctx);
        FlowView f = service.engine().flows().get(id).orElseThrow(() -> PathIds.notFound("flow", id));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("flow", flow(f));
        out.put("history", service.engine().flows().history(id).stream().map(DashboardRoutes::event).toList());
        // a compensation's payload is the job's input: not shown
        out.put("compensations", service.engine().flows().compensations(id).stream().map(DashboardRoutes::compensation).toList());
        Map<String, List<Map<String, Object>>> parts = queries.flowParts(id);
        parts.get("ledger").forEach(DashboardRoutes::explain);
        out.putAll(parts);
        ctx.json(out);
    }

    private static Map<String, Object> flow(FlowView f) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", f.id());
        m.put("kind", f.kind());
        m.put("subject", f.subject());
        m.put("state", f.state().sql());
        m.put("attention", f.attention());
        m.put("failure_reason", f.failureReason());
        m.put("deadline", f.deadline());
        m.put("created_at", f.createdAt());
        m.put("updated_at", f.updatedAt());
        m.put("finished_at", f.finishedAt());
        return m;
    }

    private static Map<String, Object> event(FlowEvent e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("at", e.at());
        m.put("from", e.from() == null ? null : e.from().sql());
        m.put("to", e.to().sql());
        m.put("reason", e.reason());
        return m;
    }

    private static Map<String, Object> compensation(Compensation c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", c.id());
        m.put("kind", c.kind());
        m.put("state", c.state());
        m.put("attempts", c.attempts());
        m.put("last_error", c.lastError());
        m.put("created_at", c.createdAt());
        m.put("finished_at", c.finishedAt());
        return m;
    }

    /** Adds whether an entry is highlighted and what happens to it next. */
    static void explain(Map<String, Object> e) {
        String state = String.valueOf(e.get("state"));
        Object updated = e.get("updated_at");
        boolean stale = updated != null && Instant.parse(updated.toString()).isBefore(Instant.now().minus(LONG_CLAIMED));
        e.put("highlight", state.equals("uncertain") || (state.equals("claimed") && stale));
        e.put("next", switch (state) {
            case "uncertain" -> "The leaf's answer was ambiguous. Once its job has ended, the reaper looks the resource up"
                    + " by its natural key: found with our tag, it is confirmed (or torn down if the flow failed); absent, the"
                    + " claim is released.";
            case "claimed" -> stale ? "Claimed for over " + LONG_CLAIMED.toMinutes() + " minutes. If its job has ended, the"
                    + " reaper looks it up at the leaf and confirms or releases it; if the job still runs, it is slow."
                    : "Its job is creating it now.";
            case "deleting" -> "Teardown is deleting it; deleting what is already gone succeeds, so a retry finishes it.";
            default -> null;
        });
    }

    private static String param(Context ctx, String name) {
        String v = ctx.queryParam(name);
        return v == null || v.isBlank() ? null : v.strip();
    }

    private static Long longParam(Context ctx, String name) {
        String v = param(ctx, name);
        if (v == null) {
            return null;
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw ApiProblem.invalid(ProblemType.INVALID_PARAMETER, name, "must be a job id");
        }
    }

    private static byte[] asset(String path) {
        String name = path.equals(PAGE) ? "dashboard/index.html" : "dashboard" + path.substring(PAGE.length());
        try (InputStream in = DashboardRoutes.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("the dashboard asset " + name + " is missing from the classpath");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
