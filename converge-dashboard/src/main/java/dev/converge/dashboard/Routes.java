package dev.converge.dashboard;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.converge.Converge;
import dev.converge.flow.Compensation;
import dev.converge.flow.FlowEvent;
import dev.converge.flow.FlowView;
import dev.converge.ledger.ResourceType;
import dev.converge.queue.JobAttempt;
import dev.converge.queue.JobRow;
import dev.converge.queue.JobState;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dashboard's routes under its mount path: the page and its assets (open: they hold no data),
 * the session exchange ({@code /session}), and the JSON under {@code /api}, for an operator only
 * (a session's cookie, or a bearer token). A request that changes something by a session's cookie
 * needs the session's CSRF token. Refusals are RFC 9457 problems.
 */
final class Routes {
    private static final Logger log = LoggerFactory.getLogger(Routes.class);
    private static final String OPERATOR = "converge.dashboard.operator";
    /** How old the overview's counts may be: the page polls about this often. */
    static final Duration OVERVIEW_MAX_AGE = Duration.ofSeconds(2);
    /** An entry claimed this long is highlighted: its job is slow, or gone and waiting for the reaper. */
    static final Duration LONG_CLAIMED = Duration.ofMinutes(5);
    /** Only our own assets and our own origin; no inline script, no framing. */
    private static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
            + " connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
    private static final String RESOURCES = "dev/converge/dashboard/";
    /** The charting library's files, in its webjar (the version its pom.properties names). */
    private static final String UPLOT = "META-INF/resources/webjars/uplot/" + webjarVersion("org.webjars.npm", "uplot")
            + "/dist/";

    private final String base;
    private final Converge engine;
    private final Dashboard.Operators operators;
    private final Sessions sessions;
    private final List<Dashboard.Page> pages;
    private final Dashboard.Actions actions;
    private final Queries queries;
    private final OverviewCache overview;
    private final Orphans orphans;
    private final ObjectMapper json = new ObjectMapper();

    Routes(String base, Converge engine, Dashboard.Operators operators, Sessions sessions, List<Dashboard.Page> pages,
            Dashboard.Actions actions, Supplier<? extends Collection<ResourceType>> resources, Duration orphanScanEvery) {
        this.base = base;
        this.engine = engine;
        this.operators = operators;
        this.sessions = sessions;
        this.pages = pages;
        this.actions = actions;
        this.queries = new Queries(engine.store(), LONG_CLAIMED);
        this.overview = new OverviewCache(queries, engine.store(), engine, OVERVIEW_MAX_AGE);
        this.orphans = new Orphans(resources, engine.ledger(), orphanScanEvery);
    }

    void register(RoutesConfig routes) {
        byte[] page = page();
        routes.get(base, ctx -> asset(ctx, "text/html; charset=utf-8", page));
        byte[] js = resource(RESOURCES + "dashboard.js");
        byte[] css = resource(RESOURCES + "dashboard.css");
        routes.get(base + "/dashboard.js", ctx -> asset(ctx, "text/javascript; charset=utf-8", js));
        routes.get(base + "/dashboard.css", ctx -> asset(ctx, "text/css; charset=utf-8", css));
        byte[] chartJs = resource(UPLOT + "uPlot.iife.min.js");
        byte[] chartCss = resource(UPLOT + "uPlot.min.css");
        routes.get(base + "/uplot.js", ctx -> asset(ctx, "text/javascript; charset=utf-8", chartJs));
        routes.get(base + "/uplot.css", ctx -> asset(ctx, "text/css; charset=utf-8", chartCss));
        routes.post(base + "/session", answer(this::login));
        routes.get(base + "/session", answer(this::current));
        routes.delete(base + "/session", answer(this::logout));

        String api = base + "/api";
        routes.get(api + "/overview", operator(ctx -> send(ctx, overview.get())));
        routes.get(api + "/jobs", operator(ctx -> {
            Instant from = timeParam(ctx, "finished_after");
            Instant to = timeParam(ctx, "finished_before");
            if (from != null && to != null && !from.isBefore(to)) {
                throw new Problem(422, "finished_after must be earlier than finished_before.");
            }
            Queries.JobPage found = queries.jobs(new Queries.JobFilter(bulkFilter("queue", param(ctx, "queue")),
                    bulkFilter("state", param(ctx, "state")), bulkFilter("type", param(ctx, "type")),
                    bulkFilter("error", param(ctx, "error")), longParam(ctx, "flow"), from, to, longParam(ctx, "before")));
            Map<String, Object> out = new java.util.LinkedHashMap<>();
            out.put("items", found.items());
            out.put("page", Queries.PAGE);
            out.put("count", found.count() == null ? null : Math.min(found.count(), Queries.COUNT_CAP));
            out.put("count_more", found.count() != null && found.count() > Queries.COUNT_CAP);
            out.put("searched_to", found.searchedTo());
            out.put("searched_to_finished", iso(found.searchedToFinished()));
            out.put("search_window", Queries.SEARCH_WINDOW);
            // the queues and job types the fleet works: the filters' choices
            java.util.TreeSet<String> queues = new java.util.TreeSet<>();
            java.util.TreeSet<String> types = new java.util.TreeSet<>();
            engine.nodes().forEach(n -> {
                queues.addAll(n.queues().keySet());
                types.addAll(n.jobTypes());
            });
            out.put("queues", queues);
            out.put("types", types);
            send(ctx, out);
        }));
        routes.get(api + "/jobs/selection", operator(this::selection)); // before /jobs/{id}
        routes.post(api + "/jobs/bulk", operator(this::bulk));
        routes.get(api + "/jobs/{id}", operator(this::job));
        routes.post(api + "/jobs/{id}/retry", operator(ctx -> act(ctx, "job retry",
                (op, id, reason, body) -> actions.retryJob(op, id, reason))));
        routes.post(api + "/jobs/{id}/cancel", operator(ctx -> act(ctx, "job cancel",
                (op, id, reason, body) -> actions.cancelJob(op, id, reason))));
        routes.post(api + "/flows/{id}/retry", operator(ctx -> act(ctx, "flow retry",
                (op, id, reason, body) -> actions.retryFlow(op, id, reason))));
        routes.post(api + "/ledger/{id}/settle", operator(ctx -> act(ctx, "ledger settle", (op, id, reason, body) -> {
            boolean exists = flag(body, "exists");
            String leafId = exists ? text(body, "leaf_id").strip() : null;
            if (leafId != null && leafId.length() > 500) {
                throw new Problem(422, "leaf_id is at most 500 characters.");
            }
            return actions.settleEntry(op, id, leafId, reason);
        })));
        routes.post(api + "/tokens/{id}/settle", operator(ctx -> act(ctx, "token settle",
                (op, id, reason, body) -> actions.settleToken(op, id, flag(body, "used"), reason))));
        routes.get(api + "/recurring", operator(ctx -> send(ctx, Map.of("items", recurring()))));
        routes.post(api + "/recurring/{name}/pause", operator(ctx -> actOnRecurring(ctx, "recurring pause",
                (op, name, reason, body) -> actions.pauseRecurring(op, name, reason))));
        routes.post(api + "/recurring/{name}/resume", operator(ctx -> actOnRecurring(ctx, "recurring resume",
                (op, name, reason, body) -> actions.resumeRecurring(op, name, reason))));
        routes.post(api + "/recurring/{name}/run", operator(ctx -> actOnRecurring(ctx, "recurring run now",
                (op, name, reason, body) -> actions.runRecurring(op, name, reason))));
        routes.get(api + "/tokens", operator(ctx -> send(ctx, Map.of("items", queries.unknownTokens()))));
        routes.get(api + "/flows", operator(ctx -> {
            String state = bulkFilter("state", param(ctx, "state"));
            String subject = bulkFilter("subject", param(ctx, "subject"));
            long count = queries.flowCount(state, subject);
            send(ctx, Map.of("items", queries.flows(state, subject, longParam(ctx, "before")), "page", Queries.PAGE,
                    "count", Math.min(count, Queries.COUNT_CAP), "count_more", count > Queries.COUNT_CAP));
        }));
        routes.get(api + "/flows/{id}", operator(this::flow));
        routes.get(api + "/ledger", operator(ctx -> {
            List<Map<String, Object>> items = queries.ledger(bulkFilter("kind", param(ctx, "kind")),
                    bulkFilter("state", param(ctx, "state")), bulkFilter("subject", param(ctx, "subject")),
                    longParam(ctx, "before"));
            items.forEach(Routes::explain);
            send(ctx, Map.of("items", items, "long_claimed_minutes", LONG_CLAIMED.toMinutes(), "page", Queries.PAGE));
        }));
        routes.get(api + "/nodes", operator(ctx -> send(ctx, nodes())));
        routes.get(api + "/history", operator(this::history));
        routes.get(api + "/orphans", operator(ctx -> send(ctx, orphans.report())));
        routes.post(api + "/orphans/scan", operator(ctx -> send(ctx, orphans.scanNow())));
        routes.post(api + "/orphans/delete", operator(this::deleteOrphan));
        for (Dashboard.Page p : pages) {
            byte[] script = resource(p.script());
            routes.get(base + "/pages/" + p.name() + ".js", ctx -> asset(ctx, "text/javascript; charset=utf-8", script));
            routes.get(api + "/pages/" + p.name(), operator(p.data()));
        }
    }

    /** Every declared recurring job: its schedule in words, last and next slot, and whether a person paused it. */
    private List<Map<String, Object>> recurring() {
        List<Map<String, Object>> out = new java.util.ArrayList<>();
        for (dev.converge.recurring.RecurringView r : engine.recurring().list()) {
            Map<String, Object> m = new java.util.LinkedHashMap<>();
            m.put("name", r.name());
            m.put("job_type", r.jobType());
            m.put("queue", r.queue());
            m.put("schedule", Schedules.words(r.schedule()));
            m.put("missed_slots", r.missedSlots().name().toLowerCase(java.util.Locale.ROOT));
            m.put("last_slot", iso(r.lastSlot()));
            m.put("last_job_id", r.lastJobId());
            m.put("skipped", r.skipped());
            m.put("next_slot", iso(r.nextSlot()));
            m.put("paused_at", iso(r.pausedAt()));
            if (r.lastAction() != null) {
                m.put("last_action", Map.of("action", r.lastAction().action(), "actor", r.lastAction().actor(),
                        "reason", r.lastAction().reason(), "at", iso(r.lastAction().at())));
            } else {
                m.put("last_action", null);
            }
            out.add(m);
        }
        return out;
    }

    /** The spans a queue's history is shown over. */
    private static final Map<String, Duration> SPANS = new java.util.LinkedHashMap<>(Map.of("1h", Duration.ofHours(1),
            "24h", Duration.ofHours(24), "7d", Duration.ofDays(7)));

    /** One queue's history (the first known queue when none is named) and the queues there are to choose from. */
    private void history(Context ctx) {
        String spanName = param(ctx, "span") == null ? "1h" : param(ctx, "span");
        Duration span = SPANS.get(spanName);
        if (span == null) {
            throw new Problem(422, "span is one of 1h, 24h, 7d.");
        }
        // the queues the fleet works (a queue nobody works is opened from its overview card, which names it)
        java.util.TreeSet<String> known = new java.util.TreeSet<>();
        engine.nodes().forEach(n -> known.addAll(n.queues().keySet()));
        String queue = param(ctx, "queue");
        if (queue != null && queue.length() > 200) {
            throw new Problem(422, "A queue's name is at most 200 characters.");
        }
        if (queue == null) {
            queue = known.isEmpty() ? null : known.first();
        } else {
            known.add(queue);
        }
        List<Map<String, Object>> points = new java.util.ArrayList<>();
        Long step = null;
        if (queue != null) {
            for (dev.converge.queue.HistoryPoint p : engine.history(queue, span)) {
                step = p.step().toSeconds();
                Map<String, Object> m = new java.util.LinkedHashMap<>();
                m.put("at", p.at().toString());
                m.put("succeeded", p.succeeded());
                m.put("failed", p.failed());
                m.put("retried", p.retried());
                m.put("depth", p.depth());
                m.put("running", p.running());
                m.put("wait_p95_ms", p.waitP95() == null ? null : p.waitP95().toMillis());
                m.put("run_p95_ms", p.runP95() == null ? null : p.runP95().toMillis());
                points.add(m);
            }
        }
        Map<String, Object> out = new java.util.LinkedHashMap<>();
        out.put("queue", queue);
        out.put("span", spanName);
        out.put("step_seconds", step);
        out.put("queues", known);
        out.put("points", points);
        send(ctx, out);
    }

    /**
     * The fleet as the nodes recorded it (version, queues, job types, last beat), and the jobs this
     * node sees waiting for a type no live node handles.
     */
    private Map<String, Object> nodes() {
        List<Map<String, Object>> items = new java.util.ArrayList<>();
        Map<String, Long> running = queries.runningByNode();
        for (dev.converge.queue.NodeInfo n : engine.nodes()) {
            Map<String, Object> m = new java.util.LinkedHashMap<>();
            m.put("node_id", n.nodeId());
            m.put("version", n.version());
            m.put("queues", n.queues());
            m.put("job_types", n.jobTypes());
            m.put("started_at", n.startedAt().toString());
            m.put("last_seen", n.lastSeen().toString());
            m.put("live", n.live());
            m.put("running", running.getOrDefault(n.nodeId(), 0L));
            items.add(m);
        }
        List<Map<String, Object>> tasks = new java.util.ArrayList<>();
        for (dev.converge.claim.LeaderRound r : engine.leaderRounds()) {
            Map<String, Object> m = new java.util.LinkedHashMap<>();
            m.put("task", r.task());
            m.put("node_id", r.nodeId());
            m.put("round_at", iso(r.roundAt()));
            m.put("outcome", r.outcome());
            m.put("detail", r.detail());
            m.put("changed_at", iso(r.changedAt()));
            m.put("changed_detail", r.changedDetail());
            tasks.add(m);
        }
        return Map.of("items", items, "this_node", engine.nodeId(), "unhandled", engine.jobsWithoutHandler(),
                "leader_tasks", tasks);
    }

    // ---- authentication --------------------------------------------------------------------

    static Dashboard.Operator operator(Context ctx) {
        Dashboard.Operator o = ctx.attribute(OPERATOR);
        if (o == null) {
            throw new IllegalStateException(ctx.path() + " is not one of the dashboard's routes");
        }
        return o;
    }

    /** {@code handler} for an operator only: a live session (with its CSRF token on a change) or a bearer token. */
    private Handler operator(Handler handler) {
        return answer(ctx -> {
            ctx.attribute(OPERATOR, authenticate(ctx));
            ctx.header("Cache-Control", "no-store");
            handler.handle(ctx);
        });
    }

    private Dashboard.Operator authenticate(Context ctx) {
        String authorization = ctx.header("Authorization");
        if (authorization != null) {
            if (!authorization.regionMatches(true, 0, "Bearer ", 0, 7) || authorization.length() <= 7) {
                throw Problem.unauthorized("Send Authorization: Bearer <operator token>.");
            }
            return operators.authenticate(authorization.substring(7).strip())
                    .orElseThrow(() -> Problem.unauthorized("This token is not an operator token."));
        }
        String csrf = ctx.header(Sessions.CSRF_HEADER);
        Optional<Sessions.Session> s = live(ctx);
        if (s.isEmpty()) {
            if (csrf != null) {
                throw Problem.csrf("This request has no live dashboard session: log in again.");
            }
            throw Problem.unauthorized("Log in: exchange an operator token at " + base + "/session.");
        }
        if (!safe(ctx) && !Sessions.csrfMatches(s.get(), csrf)) {
            throw Problem.csrf("A dashboard session's request that changes something needs the " + Sessions.CSRF_HEADER
                    + " header its session exchange returned.");
        }
        return new Dashboard.Operator(s.get().operatorId(), s.get().expiresAt());
    }

    private static boolean safe(Context ctx) {
        String method = ctx.req().getMethod();
        return method.equals("GET") || method.equals("HEAD") || method.equals("OPTIONS");
    }

    private Optional<Sessions.Session> live(Context ctx) {
        String cookie = ctx.cookie(Sessions.COOKIE);
        return cookie == null ? Optional.empty() : sessions.verify(cookie, Instant.now())
                .filter(s -> operators.live(s.operatorId()));
    }

    /**
     * Exchanges an operator token ({@code {"token": "..."}}) for a session cookie; answers the
     * session's CSRF token and expiry. Only JSON is read, so a form on another site cannot post
     * here without a CORS preflight.
     */
    private void login(Context ctx) {
        String type = ctx.contentType();
        if (type == null || !type.toLowerCase(Locale.ROOT).startsWith("application/json")) {
            throw new Problem(415, "Send the token as JSON: {\"token\": \"...\"}.");
        }
        JsonNode token = body(ctx).get("token");
        if (token == null || !token.isTextual() || token.asText().isBlank() || token.asText().length() > 200) {
            throw new Problem(422, "The token is required: an operator token.");
        }
        Dashboard.Operator op = operators.authenticate(token.asText().strip())
                .orElseThrow(() -> Problem.unauthorized("This token is not an operator token."));
        Sessions.Issued issued = sessions.issue(op.id(), op.expiresAt(), Instant.now());
        long maxAge = Math.max(1, Duration.between(Instant.now(), issued.session().expiresAt()).getSeconds());
        ctx.header("Set-Cookie", cookie(ctx, issued.cookie(), maxAge));
        ctx.header("Cache-Control", "no-store");
        log.info("dashboard session opened for operator {}", op.id());
        send(ctx, session(issued.session()));
    }

    /** The live session's CSRF token and expiry (a reloaded page reads it again), or {@code "active": false}. */
    private void current(Context ctx) {
        Optional<Sessions.Session> s = live(ctx);
        ctx.header("Cache-Control", "no-store");
        send(ctx, s.isEmpty() ? Map.of("active", false) : session(s.get()));
    }

    /** Ends the session: the cookie is cleared and refused from now on. A live session must send its CSRF token. */
    private void logout(Context ctx) {
        Optional<Sessions.Session> s = live(ctx);
        if (s.isPresent() && !Sessions.csrfMatches(s.get(), ctx.header(Sessions.CSRF_HEADER))) {
            throw Problem.csrf("Logging out needs the " + Sessions.CSRF_HEADER + " header its session exchange returned.");
        }
        s.ifPresent(live -> sessions.end(live, Instant.now()));
        ctx.header("Set-Cookie", cookie(ctx, "", 0));
        ctx.header("Cache-Control", "no-store");
        send(ctx, Map.of("ended", s.isPresent()));
    }

    private static Map<String, Object> session(Sessions.Session s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("active", true);
        m.put("csrf_token", s.csrf());
        m.put("expires_at", s.expiresAt().toString());
        m.put("operator", s.operatorId());
        return m;
    }

    /** The session cookie: HttpOnly, SameSite=Strict, for the dashboard's path only; Secure over https. */
    private String cookie(Context ctx, String value, long maxAgeSeconds) {
        boolean https = "https".equalsIgnoreCase(ctx.scheme()) || "https".equalsIgnoreCase(ctx.header("X-Forwarded-Proto"));
        return Sessions.COOKIE + "=" + value + "; Path=" + base + "; Max-Age=" + maxAgeSeconds + "; HttpOnly; SameSite=Strict"
                + (https ? "; Secure" : "");
    }

    // ---- actions ---------------------------------------------------------------------------

    private interface Action<T> {
        Dashboard.Outcome run(String operatorId, T target, String reason, JsonNode body);
    }

    /** An action on the path's id, with the reason the person gave; logged with the operator's id. */
    private void act(Context ctx, String what, Action<Long> action) {
        act(ctx, what, pathId(ctx), action);
    }

    /** An action on a recurring job named in the path. */
    private void actOnRecurring(Context ctx, String what, Action<String> action) {
        String name = ctx.pathParam("name");
        if (name.isBlank() || name.length() > 200) {
            throw new Problem(404, "There is no recurring job named '" + name + "'.");
        }
        act(ctx, what, name, action);
    }

    private <T> void act(Context ctx, String what, T target, Action<T> action) {
        JsonNode body = body(ctx);
        JsonNode reason = body.get("reason");
        if (reason == null || !reason.isTextual() || reason.asText().isBlank()) {
            throw new Problem(422, "Say why: a reason is required, and recorded with the action.");
        }
        if (reason.asText().length() > 500) {
            throw new Problem(422, "The reason is at most 500 characters.");
        }
        String operator = operator(ctx).id();
        Dashboard.Outcome outcome;
        try {
            outcome = action.run(operator, target, reason.asText().strip(), body);
        } catch (NoSuchElementException e) {
            throw new Problem(404, e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new Problem(422, e.getMessage());
        } catch (IllegalStateException e) {
            throw new Problem(409, e.getMessage());
        }
        log.info("{} {} from the dashboard by operator {}: {}", what, target, operator, outcome.detail());
        send(ctx, Map.of("changed", outcome.changed(), "detail", outcome.detail()));
    }

    private static String bulkAction(String action) {
        if (!"retry".equals(action) && !"cancel".equals(action)) {
            throw new Problem(422, "action must be retry (failed jobs) or cancel (waiting jobs).");
        }
        return action;
    }

    private static String bulkFilter(String name, String value) {
        if (value != null && value.length() > 200) {
            throw new Problem(422, name + " is at most 200 characters.");
        }
        return value == null || value.isBlank() ? null : value.strip();
    }

    /** How many jobs a bulk action would take with these filters: what the dialog says before the person confirms. */
    private void selection(Context ctx) {
        String action = bulkAction(ctx.queryParam("action"));
        long n = queries.selectionCount(action, bulkFilter("queue", param(ctx, "queue")), bulkFilter("type", param(ctx, "type")));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("action", action);
        out.put("count", Math.min(n, Queries.COUNT_CAP));
        out.put("more", n > Queries.COUNT_CAP);
        out.put("per_request", Queries.BULK);
        send(ctx, out);
    }

    /**
     * Retries the failed jobs, or cancels the waiting ones, that the filters select, at most
     * {@link Queries#BULK} a request, each through the same fenced action as one job's (so each is
     * recorded with the reason, and one that changed meanwhile is left alone and counted).
     */
    private void bulk(Context ctx) {
        JsonNode body = body(ctx);
        String action = bulkAction(body.path("action").asText(null));
        JsonNode reason = body.get("reason");
        if (reason == null || !reason.isTextual() || reason.asText().isBlank() || reason.asText().length() > 500) {
            throw new Problem(422, "Say why: a reason of at most 500 characters is required, and recorded with each job.");
        }
        String queue = bulkFilter("queue", body.path("queue").asText(null));
        String type = bulkFilter("type", body.path("type").asText(null));
        String operator = operator(ctx).id();
        int changed = 0;
        int unchanged = 0;
        for (long id : queries.selectionIds(action, queue, type)) {
            try {
                Dashboard.Outcome o = action.equals("retry") ? actions.retryJob(operator, id, reason.asText().strip())
                        : actions.cancelJob(operator, id, reason.asText().strip());
                if (o.changed()) {
                    changed++;
                } else {
                    unchanged++;
                }
            } catch (NoSuchElementException gone) {
                unchanged++; // deleted by retention meanwhile
            }
        }
        long left = queries.selectionCount(action, queue, type);
        String verb = action.equals("retry") ? "Retried" : "Cancelled";
        String detail = verb + " " + changed + " job(s)" + (unchanged > 0 ? "; " + unchanged + " had changed meanwhile and"
                + " were left alone" : "") + "." + (left > 0 ? " " + (left > Queries.COUNT_CAP ? "More than " + Queries.COUNT_CAP
                : String.valueOf(left)) + " still match" + (action.equals("retry") ? " (among them any that failed again)" : "")
                + ": run it again for the next " + Queries.BULK + "." : "");
        log.info("bulk {} from the dashboard by operator {} (queue {}, type {}): {}", action, operator, queue, type, detail);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("changed", changed);
        out.put("unchanged", unchanged);
        out.put("still_matching", left);
        out.put("detail", detail);
        send(ctx, out);
    }

    private static boolean flag(JsonNode body, String field) {
        JsonNode v = body.get(field);
        if (v == null || !v.isBoolean()) {
            throw new Problem(422, field + " is required: true or false.");
        }
        return v.asBoolean();
    }

    /**
     * Deletes an orphan of this installation at its leaf, after checking again, now, that it is one
     * (the scan the page showed may be minutes old: a flow may have claimed it since).
     */
    private void deleteOrphan(Context ctx) {
        JsonNode body = body(ctx);
        String kind = text(body, "kind");
        String leafId = text(body, "leaf_id");
        String operator = operator(ctx).id();
        send(ctx, orphans.delete(kind, leafId, operator));
    }

    // ---- reads -----------------------------------------------------------------------------

    private void flow(Context ctx) {
        long id = pathId(ctx);
        FlowView f = engine.flows().get(id).orElseThrow(() -> new Problem(404, "There is no flow " + id + ": no such id was "
                + "ever given, or retention deleted it some time after it finished."));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("flow", flow(f));
        out.put("history", engine.flows().history(id).stream().map(Routes::event).toList());
        // in the order they run: the last registered (the latest step's) first; a payload is the job's input: not shown
        List<Compensation> compensations = new java.util.ArrayList<>(engine.flows().compensations(id));
        java.util.Collections.reverse(compensations);
        out.put("compensations", compensations.stream().map(Routes::compensation).toList());
        Map<String, List<Map<String, Object>>> parts = queries.flowParts(id);
        parts.get("ledger").forEach(Routes::explain);
        out.putAll(parts);
        send(ctx, out);
    }

    /**
     * One job: its row (no payload: the job's input is not shown), every attempt the engine knows
     * (those that failed, recorded when their outcome landed, then the one running or the last that
     * succeeded or was cancelled, from the row), and the flow it belongs to.
     */
    private void job(Context ctx) {
        long id = pathId(ctx);
        JobRow j = engine.job(id).orElseThrow(() -> new Problem(404, "There is no job " + id + ": no such id was "
                + "ever given, or retention deleted it some time after it finished."));
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", j.id());
        row.put("queue", j.queue());
        row.put("kind", j.kind());
        row.put("state", j.state().sql());
        row.put("attempt", j.attempt());
        row.put("max_attempts", j.maxAttempts());
        row.put("epoch", j.epoch());
        row.put("node", j.leaseOwner());
        row.put("lease_expires_at", iso(j.leaseExpiresAt()));
        row.put("run_at", iso(j.runAt()));
        row.put("created_at", iso(j.createdAt()));
        row.put("started_at", iso(j.startedAt()));
        row.put("finished_at", iso(j.finishedAt()));
        row.put("last_error", j.lastError());
        row.put("flow_id", j.flowId());
        row.put("batch_id", j.batchId());
        row.put("chain_id", j.chainId());
        row.put("chain_pos", j.chainPos());
        List<Map<String, Object>> attempts = new java.util.ArrayList<>();
        for (JobAttempt a : engine.attempts(id)) {
            attempts.add(attempt(a.attempt(), a.nodeId(), a.startedAt(), a.finishedAt(), a.outcome(), a.error()));
        }
        boolean ranLast = j.startedAt() != null && j.attempt() > 0;
        if (j.state() == JobState.RUNNING) {
            attempts.add(attempt(j.attempt(), j.leaseOwner(), j.startedAt(), null, "running", null));
        } else if (ranLast && (j.state() == JobState.SUCCEEDED || j.state() == JobState.CANCELLED)) {
            attempts.add(attempt(j.attempt(), j.leaseOwner(), j.startedAt(), j.finishedAt(), j.state().sql(),
                    j.state() == JobState.CANCELLED ? j.lastError() : null));
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("job", row);
        out.put("attempts", attempts);
        out.put("flow", j.flowId() == null ? null : engine.flows().get(j.flowId()).map(Routes::flow).orElse(null));
        send(ctx, out);
    }

    private static Map<String, Object> attempt(int n, String node, Instant started, Instant finished, String outcome,
            String error) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("attempt", n);
        m.put("node", node);
        m.put("started_at", iso(started));
        m.put("finished_at", iso(finished));
        m.put("duration_ms", started == null || finished == null ? null : Duration.between(started, finished).toMillis());
        m.put("outcome", outcome);
        m.put("error", error);
        return m;
    }

    private static Map<String, Object> flow(FlowView f) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", f.id());
        m.put("kind", f.kind());
        m.put("subject", f.subject());
        m.put("state", f.state().sql());
        m.put("attention", f.attention());
        m.put("failure_reason", f.failureReason());
        m.put("deadline", iso(f.deadline()));
        m.put("created_at", iso(f.createdAt()));
        m.put("updated_at", iso(f.updatedAt()));
        m.put("finished_at", iso(f.finishedAt()));
        return m;
    }

    private static Map<String, Object> event(FlowEvent e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("at", iso(e.at()));
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
        m.put("created_at", iso(c.createdAt()));
        m.put("finished_at", iso(c.finishedAt()));
        return m;
    }

    private static String iso(Object time) {
        return time == null ? null : time.toString();
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

    // ---- plumbing --------------------------------------------------------------------------

    /** Runs {@code handler}, answering a {@link Problem} it throws as an RFC 9457 problem. */
    private Handler answer(Handler handler) {
        return ctx -> {
            try {
                handler.handle(ctx);
            } catch (Problem p) {
                Map<String, Object> b = new LinkedHashMap<>();
                b.put("type", p.type());
                b.put("title", p.title());
                b.put("status", p.status());
                b.put("detail", p.getMessage());
                if (p.status() == 401) {
                    ctx.header("WWW-Authenticate", "Bearer realm=\"converge-dashboard\"");
                }
                ctx.header("Cache-Control", "no-store");
                ctx.status(p.status()).contentType("application/problem+json")
                        .result(json.writeValueAsBytes(b));
            }
        };
    }

    private void send(Context ctx, Object body) {
        try {
            ctx.contentType("application/json").result(json.writeValueAsBytes(body));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the dashboard's answer does not serialize", e);
        }
    }

    private JsonNode body(Context ctx) {
        try {
            JsonNode n = json.readTree(ctx.body());
            if (n == null || !n.isObject()) {
                throw new Problem(400, "invalid-body", "Send a JSON object.");
            }
            return n;
        } catch (JsonProcessingException e) {
            throw new Problem(400, "malformed-json", "The body is not JSON.");
        }
    }

    private static String text(JsonNode body, String field) {
        JsonNode v = body.get(field);
        if (v == null || !v.isTextual() || v.asText().isBlank()) {
            throw new Problem(422, field + " is required.");
        }
        return v.asText();
    }

    private static long pathId(Context ctx) {
        try {
            long id = Long.parseLong(ctx.pathParam("id"));
            if (id > 0) {
                return id;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new Problem(404, "No such id: " + ctx.pathParam("id") + ".");
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
            throw new Problem(400, name + " must be an id.");
        }
    }

    /**
     * A point in time: an ISO-8601 instant ({@code 2026-12-06T10:00:00Z}) or a local date-time as a
     * browser's date-time field sends it, read as UTC ({@code 2026-12-06T10:00}).
     */
    private static Instant timeParam(Context ctx, String name) {
        String v = param(ctx, name);
        if (v == null) {
            return null;
        }
        try {
            return v.endsWith("Z") || v.contains("+") ? java.time.OffsetDateTime.parse(v).toInstant()
                    : java.time.LocalDateTime.parse(v).toInstant(java.time.ZoneOffset.UTC);
        } catch (java.time.format.DateTimeParseException e) {
            throw new Problem(400, name + " must be a time such as 2026-12-06T10:00:00Z (or 2026-12-06T10:00, read as UTC).");
        }
    }

    private static void asset(Context ctx, String type, byte[] body) {
        ctx.contentType(type).header("Content-Security-Policy", CSP).header("X-Content-Type-Options", "nosniff")
                .header("Referrer-Policy", "no-referrer").header("Cache-Control", "no-cache").result(body);
    }

    /** The page, with the mount path and the application's pages (their nav entries and scripts) written in. */
    private byte[] page() {
        String html = new String(resource(RESOURCES + "index.html"), StandardCharsets.UTF_8);
        StringBuilder nav = new StringBuilder();
        StringBuilder scripts = new StringBuilder();
        for (Dashboard.Page p : pages) {
            nav.append("      <a href=\"#").append(p.name()).append("\">").append(escape(p.title())).append("</a>\n");
            scripts.append("  <script src=\"").append(base).append("/pages/").append(p.name()).append(".js\" defer></script>\n");
        }
        return html.replace("      <!-- pages -->\n", nav.toString()).replace("  <!-- scripts -->\n", scripts.toString())
                .replace("{{base}}", base).getBytes(StandardCharsets.UTF_8);
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    private static String webjarVersion(String group, String artifact) {
        java.util.Properties p = new java.util.Properties();
        try {
            p.load(new java.io.ByteArrayInputStream(resource("META-INF/maven/" + group + "/" + artifact + "/pom.properties")));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the version of " + artifact, e);
        }
        return p.getProperty("version");
    }

    private static byte[] resource(String name) {
        ClassLoader[] loaders = {Routes.class.getClassLoader(), Thread.currentThread().getContextClassLoader()};
        for (ClassLoader loader : loaders) {
            if (loader == null) {
                continue;
            }
            try (InputStream in = loader.getResourceAsStream(name)) {
                if (in != null) {
                    return in.readAllBytes();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        throw new IllegalStateException("the dashboard asset " + name + " is missing from the classpath");
    }
}
