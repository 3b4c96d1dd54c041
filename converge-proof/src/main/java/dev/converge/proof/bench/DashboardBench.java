package dev.converge.proof.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.converge.Converge;
import dev.converge.dashboard.Dashboard;
import dev.converge.recurring.Occurrence;
import dev.converge.recurring.RecurringJob;
import dev.converge.recurring.Schedule;
import dev.converge.queue.JobType;
import dev.converge.store.Store;
import io.javalin.Javalin;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The dashboard's JSON under a production-sized store: a scratch PostgreSQL database filled with
 * {@code finished} finished jobs (a day of history, as the default retention keeps: mostly
 * succeeded, some failed with their stack traces, some cancelled; a fifth part of flows), {@code
 * live} waiting and running jobs, flows, ledger entries and a week of queue history; then an engine
 * node (builder defaults) with the dashboard on loopback, once the database's autovacuum has
 * visited the jobs table as it does by itself after such inserts, and every route the page reads asked one
 * request after another, as one operator's page does. The overview's counts are read at most every
 * two seconds for all viewers (in the background once there is a first reading), so its requests
 * are spaced past that; the time one reading takes is printed beside them. The
 * reference is the dashboard's cheapest authenticated route (its session), the floor of HTTP,
 * session check and JSON on this machine.
 */
public final class DashboardBench {
    /** What each route must answer within, at the 95th percentile. */
    public static final Duration TARGET_P95 = Duration.ofMillis(300);
    private static final String TOKEN = "bench-operator-token-0123456789abcdef";
    private static final List<String> QUEUES = List.of("default", "mail", "sites", "reports");
    static final JobType<Occurrence> NIGHTLY = JobType.of("bench.nightly", Occurrence.class);

    public record Options(String dbUrl, String user, long finished, long live, int requests) {
        public Options {
            if (finished < 1000 || live < 100 || requests < 5) {
                throw new IllegalArgumentException("at least 1000 finished and 100 live jobs, and 5 requests a route");
            }
        }
    }

    /** One route's latencies in milliseconds. */
    public record Route(String path, double p50, double p95, double max, int requests) {
    }

    public record Result(long finished, long live, double fillSeconds, String maintenance, double overviewReadingMs,
            Route reference, List<Route> routes) {
        public boolean met() {
            return routes.stream().allMatch(r -> r.p95() < TARGET_P95.toMillis());
        }

        public void print(PrintStream out) {
            out.printf(Locale.ROOT, "converge bench dashboard: %,d finished and %,d live jobs (filled in %.0f s; %s), one "
                    + "request after another%n", finished, live, fillSeconds, maintenance);
            out.printf(Locale.ROOT, "  %-58s %9s %9s %9s%n", "route", "p50 ms", "p95 ms", "max ms");
            out.printf(Locale.ROOT, "  %-58s %9.1f %9.1f %9.1f  (reference: session check)%n", reference.path(),
                    reference.p50(), reference.p95(), reference.max());
            for (Route r : routes) {
                out.printf(Locale.ROOT, "  %-58s %9.1f %9.1f %9.1f%s%n", r.path(), r.p50(), r.p95(), r.max(),
                        r.p95() < TARGET_P95.toMillis() ? "" : "  over " + TARGET_P95.toMillis() + " ms");
            }
            out.printf(Locale.ROOT, "  one reading of the overview's counts (the first viewer waits for it; later ones are "
                    + "answered with the last while the next is read): %.0f ms%n", overviewReadingMs);
            out.printf(Locale.ROOT, "  every route p95 < %d ms: %s%n", TARGET_P95.toMillis(), met() ? "yes" : "NO");
        }
    }

    private final Options o;
    private final Consumer<String> progress;
    private final HttpClient http = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();
    private String maintenance;

    public DashboardBench(Options o, Consumer<String> progress) {
        this.o = o;
        this.progress = progress;
    }

    public Result run() throws Exception {
        try (BenchDatabase db = BenchDatabase.create(true, o.dbUrl(), o.user());
                Store store = Store.open(db.config().build())) {
            long t0 = System.nanoTime();
            fill(db);
            double fill = (System.nanoTime() - t0) / 1e9;
            progress.accept(String.format(Locale.ROOT, "filled in %.0f s", fill));
            try (Converge engine = Converge.builder(store).nodeId("bench-dashboard").declare(NIGHTLY)
                    .recurring(RecurringJob.of(NIGHTLY, Schedule.every(Duration.ofHours(6)))).build().start()) {
                Dashboard dashboard = Dashboard.builder(engine)
                        .operators(t -> TOKEN.equals(t) ? Optional.of(new Dashboard.Operator("bench", null))
                                : Optional.empty())
                        .build();
                Javalin app = Javalin.create(cfg -> {
                    cfg.startup.showJavalinBanner = false;
                    cfg.jetty.host = "127.0.0.1";
                    cfg.jetty.port = 0;
                    dashboard.mount(cfg, "/ui");
                }).start();
                try {
                    return measure("http://127.0.0.1:" + app.port() + "/ui", fill);
                } finally {
                    app.stop();
                }
            }
        }
    }

    private Result measure(String base, double fill) throws Exception {
        HttpResponse<String> login = http.send(HttpRequest.newBuilder(URI.create(base + "/session"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"token\":\"" + TOKEN + "\"}"))
                .header("Content-Type", "application/json").build(), HttpResponse.BodyHandlers.ofString());
        if (login.statusCode() != 200) {
            throw new IllegalStateException("login refused: " + login.body());
        }
        String cookie = login.headers().firstValue("Set-Cookie").orElseThrow().split(";", 2)[0];
        long t = System.nanoTime();
        get(base, cookie, "/api/overview"); // the first reading: this viewer waits for it
        double overviewReading = (System.nanoTime() - t) / 1e6;
        JsonNode failed = get(base, cookie, "/api/jobs?state=failed").get("items");
        long someFailed = failed.get(0).get("id").asLong();
        long middle = failed.get(failed.size() - 1).get("id").asLong();
        JsonNode flows = get(base, cookie, "/api/flows?state=failed").get("items");
        long someFlow = flows.get(0).get("id").asLong();
        List<String> paths = List.of("/api/jobs", "/api/jobs?state=failed", "/api/jobs?state=available",
                "/api/jobs?queue=mail", "/api/jobs?type=bench.kind3", "/api/jobs?state=failed&before=" + middle,
                "/api/jobs?error=Billing.java:499", "/api/jobs?state=failed&error=no-such-text",
                "/api/jobs?type=no-such-type", "/api/jobs?flow=" + someFlow,
                "/api/jobs?finished_after=" + hoursAgo(1), "/api/jobs?state=failed&finished_after=" + hoursAgo(1),
                "/api/jobs?queue=mail&finished_after=" + hoursAgo(20) + "&finished_before=" + hoursAgo(19),
                "/api/flows?subject=site-4242", "/api/ledger?subject=site-4242",
                "/api/jobs/" + someFailed, "/api/jobs/selection?action=retry", "/api/jobs/selection?action=cancel",
                "/api/flows", "/api/flows?state=failed", "/api/flows/" + someFlow, "/api/ledger",
                "/api/ledger?state=confirmed", "/api/tokens", "/api/nodes", "/api/history?queue=default&span=1h",
                "/api/history?queue=default&span=24h", "/api/history?queue=default&span=7d", "/api/recurring", "/api/orphans");
        Route reference = route(base, cookie, "/session", o.requests(), Duration.ZERO);
        List<Route> routes = new ArrayList<>();
        // the overview is computed at most every 2 s for all viewers: spaced past that, each request computes it
        routes.add(route(base, cookie, "/api/overview", Math.max(5, o.requests() / 3), Duration.ofMillis(2100)));
        for (String p : paths) {
            routes.add(route(base, cookie, p, o.requests(), Duration.ZERO));
            progress.accept(routes.get(routes.size() - 1).toString());
        }
        return new Result(o.finished(), o.live(), fill, maintenance, overviewReading, reference, routes);
    }

    private static String hoursAgo(int hours) {
        return java.time.Instant.now().minus(Duration.ofHours(hours)).truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
    }

    private Route route(String base, String cookie, String path, int n, Duration spacing) throws Exception {
        get(base, cookie, path); // the route's first call (the JVM's and the database's caches), not counted
        double[] ms = new double[n];
        for (int i = 0; i < n; i++) {
            if (!spacing.isZero()) {
                Thread.sleep(spacing.toMillis());
            }
            long t = System.nanoTime();
            get(base, cookie, path);
            ms[i] = (System.nanoTime() - t) / 1e6;
        }
        Arrays.sort(ms);
        return new Route(path, ms[(int) Math.ceil(n * 0.50) - 1], ms[(int) Math.ceil(n * 0.95) - 1], ms[n - 1], n);
    }

    private JsonNode get(String base, String cookie, String path) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path)).header("Cookie", cookie)
                .header("Accept", "application/json").build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException(path + " answered " + r.statusCode() + ": " + r.body());
        }
        return json.readTree(r.body());
    }

    /**
     * Rows as the engine writes them, in set-based statements: finished jobs over the last day (90 %
     * succeeded, 9 % failed with a stack trace, 1 % cancelled; every fifth in a flow), live jobs
     * (a tenth running), one flow per five finished jobs (1 % failed, 50 needing a person), a
     * ledger entry per flow, a week of history for every queue from three nodes.
     */
    private void fill(BenchDatabase db) throws Exception {
        long flows = Math.max(10, o.finished() / 5);
        try (Connection c = db.connect(); Statement st = c.createStatement()) {
            progress.accept("filling " + flows + " flows");
            st.execute("INSERT INTO cv_flow (id, kind, subject, state, failure_reason, attention, created_at, updated_at, "
                    + "finished_at) OVERRIDING SYSTEM VALUE SELECT i, 'site', 'site-' || i, CASE WHEN i % 100 = 0 THEN "
                    + "'failed' WHEN i % (" + flows + " / 50) = 1 THEN 'needs_attention' ELSE 'succeeded' END, "
                    + "CASE WHEN i % 100 = 0 THEN 'step hosting failed: the host said 503' END, CASE WHEN i % (" + flows
                    + " / 50) = 1 THEN 'a compensation gave up: look at the hosting leaf' END, "
                    + "now() - interval '1 day' * i / " + flows + " - interval '1 minute', now() - interval '1 day' * i / "
                    + flows + ", now() - interval '1 day' * i / " + flows + " FROM generate_series(1, " + flows + ") i");
            st.execute("SELECT setval(pg_get_serial_sequence('cv_flow', 'id'), " + flows + ")");
            progress.accept("filling " + o.finished() + " finished jobs");
            st.execute("INSERT INTO cv_job (queue, kind, payload, state, run_at, attempt, max_attempts, epoch, lease_owner, "
                    + "flow_id, last_error, created_at, started_at, finished_at) SELECT "
                    + "(ARRAY['default','mail','sites','reports'])[1 + i % 4], 'bench.kind' || (i % 8), "
                    + "'{\"n\":' || i || '}', CASE WHEN i % 100 < 90 THEN 'succeeded' WHEN i % 100 < 99 THEN 'failed' "
                    + "ELSE 'cancelled' END, t - interval '2 seconds', CASE WHEN i % 100 BETWEEN 90 AND 98 THEN 10 ELSE 1 END, "
                    + "10, 1, 'node-' || (i % 3), CASE WHEN i % 5 = 0 THEN 1 + (i / 5) % " + flows + " END, "
                    + "CASE WHEN i % 100 BETWEEN 90 AND 98 THEN 'java.lang.IllegalStateException: the card service is down' "
                    + "|| repeat(E'\\n\\tat com.example.Billing.charge(Billing.java:' || (i % 500) || ')', 30) END, "
                    + "t - interval '3 seconds', t - interval '1 second', t "
                    + "FROM (SELECT i, now() - interval '1 day' * i / " + o.finished() + " AS t FROM generate_series(1, "
                    + o.finished() + ") i) s");
            progress.accept("filling " + o.live() + " live jobs");
            st.execute("INSERT INTO cv_job (queue, kind, payload, state, run_at, attempt, max_attempts, epoch, lease_owner, "
                    + "lease_expires_at, created_at, started_at) SELECT (ARRAY['default','mail','sites','reports'])[1 + i % 4], "
                    + "'bench.kind' || (i % 8), '{\"n\":' || i || '}', CASE WHEN i % 10 = 0 THEN 'running' ELSE 'available' END, "
                    + "now() - interval '1 second' * (i % 600), CASE WHEN i % 10 = 0 THEN 1 ELSE 0 END, 10, "
                    + "CASE WHEN i % 10 = 0 THEN 1 ELSE 0 END, CASE WHEN i % 10 = 0 THEN 'node-' || (i % 3) END, "
                    + "CASE WHEN i % 10 = 0 THEN now() + interval '30 seconds' END, now() - interval '1 second' * (i % 600), "
                    + "CASE WHEN i % 10 = 0 THEN now() END FROM generate_series(1, " + o.live() + ") i");
            progress.accept("filling the ledger and the history");
            st.execute("INSERT INTO cv_ledger (kind, natural_key, flow_id, subject, state, safety, leaf_id, owner_job_id, "
                    + "owner_epoch, created_at, updated_at, confirmed_at) SELECT 'hosting', 'site-' || i, i, 'site-' || i, "
                    + "CASE WHEN i % 2000 = 0 THEN 'uncertain' ELSE 'confirmed' END, 'idempotent', 'h-' || i, NULL, NULL, "
                    + "now() - interval '1 day' * i / " + flows + ", now() - interval '1 day' * i / " + flows + ", "
                    + "now() - interval '1 day' * i / " + flows + " FROM generate_series(1, " + flows + ") i");
            st.execute("INSERT INTO cv_queue_history (at_minute, queue, node_id, succeeded, failed, retried, depth, running, "
                    + "w0, w1, w2, w3, w4, w5, w6, w7, w8, r0, r1, r2, r3, r4, r5, r6, r7, r8) SELECT m, q, 'node-' || n, "
                    + "200 + (m % 50), m % 7, m % 3, NULL, NULL, 150, 40, 10, 5, 1, 0, 0, 0, 0, 100, 80, 20, 5, 1, 0, 0, 0, 0 "
                    + "FROM generate_series(floor(extract(epoch FROM now()) / 60)::bigint - 7 * 1440, "
                    + "floor(extract(epoch FROM now()) / 60)::bigint) m, unnest(ARRAY['default','mail','sites','reports']) q, "
                    + "generate_series(0, 2) n");
        }
        // no maintenance a user would not have: a default PostgreSQL's autovacuum visits a table this
        // size within a minute or two of such inserts (statistics, visibility map); the run measures
        // after it has. Where autovacuum is off, the run does by hand what it would have done.
        try (Connection c = db.connect(); Statement st = c.createStatement();
                java.sql.ResultSet rs = st.executeQuery("SHOW autovacuum")) {
            rs.next();
            if (!"on".equals(rs.getString(1))) {
                maintenance = "autovacuum is off on this server: VACUUM ANALYZE by hand, as autovacuum does by default";
                vacuumByHand(db);
                return;
            }
        }
        long deadline = System.nanoTime() + Duration.ofMinutes(4).toNanos();
        progress.accept("waiting for autovacuum to visit cv_job, as it does on its own after such inserts");
        while (System.nanoTime() < deadline) {
            try (Connection c = db.connect(); Statement st = c.createStatement();
                    java.sql.ResultSet rs = st.executeQuery("SELECT last_autovacuum IS NOT NULL AND last_autoanalyze IS NOT "
                            + "NULL FROM pg_stat_user_tables WHERE relname = 'cv_job'")) {
                if (rs.next() && rs.getBoolean(1)) {
                    maintenance = "autovacuum visited cv_job";
                    return;
                }
            }
            Thread.sleep(2000);
        }
        maintenance = "autovacuum had not visited cv_job after 4 minutes: VACUUM ANALYZE by hand";
        vacuumByHand(db);
    }

    private void vacuumByHand(BenchDatabase db) throws Exception {
        progress.accept("VACUUM ANALYZE");
        try (Connection c = db.connect(); Statement st = c.createStatement()) {
            st.execute("VACUUM ANALYZE");
        }
    }

    public static Map<String, Object> toJson(Result r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("finished", r.finished());
        m.put("live", r.live());
        m.put("maintenance", r.maintenance());
        m.put("reference_p95_ms", r.reference().p95());
        m.put("overview_reading_ms", r.overviewReadingMs());
        Map<String, Object> routes = new LinkedHashMap<>();
        for (Route x : r.routes()) {
            routes.put(x.path(), Map.of("p50_ms", x.p50(), "p95_ms", x.p95(), "max_ms", x.max()));
        }
        m.put("routes", routes);
        m.put("met", r.met());
        return m;
    }
}
