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
import java.util.Optional;

/**
 * The operators' dashboard on the API server: the page and its two assets at {@code /ui} (open:
 * they hold no data), and its JSON under {@code /v1/dashboard}, for the operator token only. The
 * page exchanges the token once ({@code POST /ui/session}) for an HttpOnly, SameSite=Strict
 * session cookie ({@link DashboardSession}) and keeps only the session's CSRF token, in memory; it
 * sends that token with every request that changes something, and polls. Every asset comes from the jar.
 */
public final class DashboardRoutes implements ApiExtension {
    static final String PAGE = "/ui";
    static final String API = "/v1/dashboard";
    /** Where an operator token is exchanged for a session (POST), read back (GET) and ended (DELETE). */
    static final String SESSION = PAGE + "/session";
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
        DashboardSession sessions = authz.sessions();
        if (sessions != null) {
            config.routes.post(SESSION, ctx -> login(ctx, authz, sessions, context.json()));
            config.routes.get(SESSION, ctx -> current(ctx, authz, sessions));
            config.routes.delete(SESSION, ctx -> logout(ctx, authz, sessions));
        }
        new DashboardActions(service, context.json()).register(config.routes, authz);
        config.routes.get(API + "/overview", authz.operator(ctx -> ctx.json(overview.get())));
        config.routes.get(API + "/jobs", authz.operator(ctx -> ctx.json(Map.of("items",
                queries.jobs(param(ctx, "queue"), param(ctx, "state"), param(ctx, "type"), longParam(ctx, "before"))))));
        config.routes.get(API + "/sites", authz.operator(ctx -> {
            String state = param(ctx, "state");
            if (state != null) {
                try {
                    dev.converge.provisioning.site.SiteState.fromSql(state);
                } catch (IllegalArgumentException e) {
                    throw ApiProblem.invalid(ProblemType.INVALID_PARAMETER, "state", "is not a site state");
                }
            }
            List<Map<String, Object>> items = queries.sites(longParam(ctx, "tenant_id"), state, longParam(ctx, "before"));
            items.forEach(DashboardRoutes::failureCode);
            ctx.json(Map.of("items", items, "page", DashboardQueries.PAGE));
        }));
        config.routes.get(API + "/flows", authz.operator(ctx -> ctx.json(Map.of("items",
                queries.flows(param(ctx, "state"))))));
        config.routes.get(API + "/flows/{id}", authz.operator(ctx -> flow(ctx, service, queries)));
        config.routes.get(API + "/ledger", authz.operator(ctx -> {
            List<Map<String, Object>> items = queries.ledger(param(ctx, "kind"), param(ctx, "state"));
            items.forEach(DashboardRoutes::explain);
            ctx.json(Map.of("items", items, "long_claimed_minutes", LONG_CLAIMED.toMinutes()));
        }));
    }

    /**
     * Exchanges an operator token ({@code {"token": "..."}}) for a session cookie; answers the
     * session's CSRF token and expiry. Only JSON is read, so a form on another site cannot post
     * here without a CORS preflight this server never grants.
     */
    private static void login(Context ctx, Authz authz, DashboardSession sessions,
            com.fasterxml.jackson.databind.ObjectMapper json) {
        String type = ctx.contentType();
        if (type == null || !type.toLowerCase(java.util.Locale.ROOT).startsWith("application/json")) {
            throw new ApiProblem(ProblemType.UNSUPPORTED_MEDIA_TYPE, "Send the token as JSON: {\"token\": \"...\"}.");
        }
        com.fasterxml.jackson.databind.JsonNode body;
        try {
            body = json.readTree(ctx.body());
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new ApiProblem(ProblemType.MALFORMED_JSON, "The body is not JSON.");
        }
        com.fasterxml.jackson.databind.JsonNode token = body == null ? null : body.get("token");
        if (token == null || !token.isTextual() || token.asText().isBlank() || token.asText().length() > 200) {
            throw ApiProblem.invalid(ProblemType.VALIDATION_FAILED, "token", "is required: an operator token");
        }
        Authz.Decision d = authz.decide("Bearer " + token.asText().strip(), java.util.EnumSet.of(
                dev.converge.provisioning.access.Scope.OPERATOR));
        if (d.credential().isEmpty()) {
            throw d.status() == 401 ? new ApiProblem(ProblemType.UNAUTHORIZED, "The token is not valid.")
                    : new ApiProblem(ProblemType.INSUFFICIENT_SCOPE, "This token is not an operator token.");
        }
        var credential = d.credential().get();
        DashboardSession.Issued issued = sessions.issue(credential.tokenId(), credential.expiresAt(), Instant.now());
        long maxAge = Math.max(1, Duration.between(Instant.now(), issued.session().expiresAt()).getSeconds());
        ctx.header("Set-Cookie", cookie(ctx, issued.cookie(), maxAge));
        ctx.header("Cache-Control", "no-store");
        org.slf4j.LoggerFactory.getLogger(DashboardRoutes.class).info("dashboard session opened for operator token {}",
                credential.tokenId());
        ctx.json(session(issued.session()));
    }

    /** The live session's CSRF token and expiry (a reloaded page reads it again), or {@code "active": false}. */
    private static void current(Context ctx, Authz authz, DashboardSession sessions) {
        Optional<DashboardSession.Session> s = live(ctx, authz, sessions);
        ctx.header("Cache-Control", "no-store");
        // no session is an answer, not an error: the page shows its login form
        ctx.json(s.isEmpty() ? Map.of("active", false) : session(s.get()));
    }

    /** Ends the session: the cookie is cleared and refused from now on. A live session must send its CSRF token. */
    private static void logout(Context ctx, Authz authz, DashboardSession sessions) {
        Optional<DashboardSession.Session> s = live(ctx, authz, sessions);
        if (s.isPresent() && !DashboardSession.csrfMatches(s.get(), ctx.header(DashboardSession.CSRF_HEADER))) {
            throw new ApiProblem(ProblemType.CSRF, "Logging out needs the " + DashboardSession.CSRF_HEADER
                    + " header its session exchange returned.");
        }
        s.ifPresent(live -> sessions.end(live, Instant.now()));
        ctx.header("Set-Cookie", cookie(ctx, "", 0));
        ctx.header("Cache-Control", "no-store");
        ctx.json(Map.of("ended", s.isPresent()));
    }

    private static Optional<DashboardSession.Session> live(Context ctx, Authz authz, DashboardSession sessions) {
        String cookie = ctx.cookie(DashboardSession.COOKIE);
        return cookie == null ? Optional.empty() : sessions.verify(cookie, Instant.now())
                .filter(s -> authz.credentials().operator(s.tokenId()).isPresent());
    }

    private static Map<String, Object> session(DashboardSession.Session s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("active", true);
        m.put("csrf_token", s.csrf());
        m.put("expires_at", s.expiresAt().toString());
        m.put("token_id", s.tokenId());
        return m;
    }

    /** The session cookie: HttpOnly, SameSite=Strict, for the whole origin; Secure when the request came over https. */
    static String cookie(Context ctx, String value, long maxAgeSeconds) {
        boolean https = "https".equalsIgnoreCase(ctx.scheme()) || "https".equalsIgnoreCase(ctx.header("X-Forwarded-Proto"));
        return DashboardSession.COOKIE + "=" + value + "; Path=/; Max-Age=" + maxAgeSeconds + "; HttpOnly; SameSite=Strict"
                + (https ? "; Secure" : "");
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

    /** Adds the stable failure code its tenant sees, beside the full reason the operator reads. */
    private static void failureCode(Map<String, Object> site) {
        var state = dev.converge.provisioning.site.SiteState.fromSql(String.valueOf(site.get("state")));
        Object reason = site.get("failure");
        var failure = state == dev.converge.provisioning.site.SiteState.FAILED
                || state == dev.converge.provisioning.site.SiteState.NEEDS_ATTENTION
                ? dev.converge.provisioning.site.SiteFailure.of(state, reason == null ? null : reason.toString()) : null;
        site.put("failure_code", failure == null ? null : failure.code());
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
            throw ApiProblem.invalid(ProblemType.INVALID_PARAMETER, name, "must be an id");
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
