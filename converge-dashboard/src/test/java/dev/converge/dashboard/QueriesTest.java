package dev.converge.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.store.Store;
import dev.converge.testkit.ScratchDatabase;
import dev.converge.testkit.TestStores;
import dev.converge.time.EngineClock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The dashboard's SQL on both stores: the same rows give the same counts, lists and highlights. */
class QueriesTest {

    @Test
    void onH2() {
        try (Store store = TestStores.h2(true, EngineClock.database())) {
            check(store);
        }
    }

    @Test
    void onPostgres() {
        try (ScratchDatabase db = ScratchDatabase.create("cv_dashboard");
                Store store = TestStores.postgres(db, true, EngineClock.database(), 4)) {
            check(store);
        }
    }

    /** The same with the engine's tables in a schema of their own, which every query must name. */
    @Test
    void onPostgresWithTheEnginesTablesInASchema() {
        try (ScratchDatabase db = ScratchDatabase.create("cv_dashboard_schema");
                Store store = Store.open(dev.converge.store.StoreConfig.postgres(db.url()).username(db.user())
                        .schema("converge_engine").maxPoolSize(4).build())) {
            check(store);
        }
    }

    /**
     * A search by error text reads a window of the newest jobs: an old failure beyond it is not
     * found at once, the answer says where the window ended, and asking below that finds it.
     */
    @Test
    void aSearchByErrorTextGoesOnBeyondItsWindow() {
        try (Store store = TestStores.h2(true, EngineClock.database())) {
            current = store;
            Instant now = Instant.now();
            store.withConnection(c -> {
                insert(c, "INSERT INTO cv_job (queue, kind, payload, state, run_at, max_attempts, created_at, finished_at,"
                        + " last_error) VALUES ('default', 'test.kind', '{}', 'failed', ?, 3, ?, ?,"
                        + " 'java.lang.Exception: the old needle')", now, now, now.minus(Duration.ofHours(1)));
                try (var st = c.createStatement()) {
                    st.execute("INSERT INTO cv_job (queue, kind, payload, state, run_at, max_attempts, created_at, finished_at)"
                            + " SELECT 'default', 'test.kind', '{}', 'succeeded', CURRENT_TIMESTAMP, 3, CURRENT_TIMESTAMP,"
                            + " CURRENT_TIMESTAMP FROM "
                            + "SYSTEM_RANGE(1, " + (Queries.SEARCH_WINDOW + 10) + ")");
                }
                return null;
            });
            Queries q = new Queries(store, Duration.ofMinutes(5));
            Queries.JobPage first = q.jobs(Queries.JobFilter.of(null, null, null, "OLD NEEDLE", null));
            assertThat(first.items()).isEmpty();
            assertThat(first.searchedTo()).as("where the window ended").isNotNull();
            Queries.JobPage next = q.jobs(Queries.JobFilter.of(null, null, null, "OLD NEEDLE", first.searchedTo()));
            assertThat(next.items()).extracting(j -> j.get("state")).containsExactly("failed");
            assertThat(next.searchedTo()).as("the window reached the oldest job").isNull();
            // the same in a time range: the window is the latest finished, and goes on from its last row's time
            Queries.JobFilter timed = new Queries.JobFilter(null, null, null, "old needle", null,
                    now.minus(Duration.ofHours(2)), null, null);
            Queries.JobPage firstTimed = q.jobs(timed);
            assertThat(firstTimed.items()).isEmpty();
            assertThat(firstTimed.searchedToFinished()).isNotNull();
            Queries.JobPage nextTimed = q.jobs(new Queries.JobFilter(null, null, null, "old needle", null,
                    now.minus(Duration.ofHours(2)), firstTimed.searchedToFinished(), firstTimed.searchedTo()));
            assertThat(nextTimed.items()).extracting(j -> j.get("state")).containsExactly("failed");
        }
    }

    /** The store whose schema the test's own statements name (the engine's tables may be in one). */
    private static Store current;

    private static void check(Store store) {
        current = store;
        Instant now = Instant.now();
        long flow = store.withConnection(c -> {
            insert(c, "INSERT INTO cv_flow (kind, subject, state, attention, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
                    "provision-site", "site-1", "needs_attention", "check the license", now, now);
            insert(c, "INSERT INTO cv_flow (kind, subject, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
                    "provision-site", "site-2", "succeeded", now, now);
            return one(c, "SELECT id FROM cv_flow WHERE subject = 'site-1'");
        });
        store.withConnection(c -> {
            job(c, "default", "succeeded", now.minusSeconds(30), flow);
            job(c, "default", "succeeded", now.minus(Duration.ofMinutes(50)), flow);
            job(c, "default", "succeeded", now.minus(Duration.ofMinutes(90)), flow); // older than the chart
            job(c, "default", "failed", now, flow); // in the newest bucket whatever the minute
            insert(c, "UPDATE cv_job SET last_error = ? WHERE state = 'failed'",
                    "java.lang.IllegalStateException: the Card Service is down, 100%_sure\n\tat x.Y(Y.java:1)");
            job(c, "mail", "available", null, null);
            ledger(c, "license", "k1", flow, "uncertain", now);
            ledger(c, "license", "k2", flow, "claimed", now.minus(Duration.ofMinutes(10)));
            ledger(c, "git.repository", "k3", flow, "confirmed", now);
            ledger(c, "git.repository", "k4", flow, "claimed", now);
            return null;
        });
        Queries q = new Queries(store, Duration.ofMinutes(5));

        store.withConnection(c -> {
            assertThat(q.jobsByQueue(c)).as("succeeded jobs are counted per hour, not in the table's states")
                    .isEqualTo(Map.of("default", Map.of("failed", 1L), "mail", Map.of("available", 1L)));
            long[][] series = q.throughput(c, now).get("default");
            long ok = 0;
            long bad = 0;
            for (long[] b : series) {
                ok += b[0];
                bad += b[1];
            }
            assertThat(ok).as("the last hour only").isEqualTo(2);
            assertThat(bad).isEqualTo(1);
            assertThat(series[Queries.BUCKETS - 1][1]).as("the newest bucket holds the newest failure").isEqualTo(1);
            assertThat(q.byState(c, "cv_flow")).isEqualTo(Map.of("needs_attention", 1L, "succeeded", 1L));
            assertThat(q.ledgerByKind(c)).isEqualTo(Map.of("license", Map.of("uncertain", 1L, "claimed", 1L),
                    "git.repository", Map.of("confirmed", 1L, "claimed", 1L)));
            assertThat(q.longClaimedCount(c, now)).isEqualTo(1);
            return null;
        });

        List<Map<String, Object>> flows = q.flows(null, null, null);
        assertThat(flows.get(0).get("state")).isEqualTo("needs_attention");
        assertThat(flows.get(0).get("attention")).isEqualTo("check the license");
        assertThat(flows).hasSize(2);
        assertThat(q.flows(null, "site-2", null)).extracting(f -> f.get("subject")).containsExactly("site-2");
        assertThat(q.flows("failed", "site-2", null)).isEmpty();
        assertThat(q.jobs(Queries.JobFilter.of("default", "succeeded", null, null, null)).items()).hasSize(3)
                .allSatisfy(j -> assertThat(j).containsEntry("state", "succeeded").doesNotContainKey("payload"));
        assertThat(q.jobs(Queries.JobFilter.of(null, null, "no-such", null, null)).items()).isEmpty();
        long newest = ((Number) q.jobs(Queries.JobFilter.of(null, null, null, null, null)).items().get(0).get("id")).longValue();
        assertThat(q.jobs(Queries.JobFilter.of(null, null, null, null, newest)).items()).hasSize(4);
        // a piece of the error, any case; % and _ are themselves, not wildcards
        assertThat(q.jobs(Queries.JobFilter.of(null, null, null, "CARD SERVICE", null)).items()).extracting(j -> j.get("state")).containsExactly("failed");
        assertThat(q.jobs(Queries.JobFilter.of(null, null, null, "card%down", null)).items()).isEmpty();
        assertThat(q.jobs(Queries.JobFilter.of(null, null, null, "100%_sure", null)).items()).extracting(j -> j.get("state")).containsExactly("failed");
        // by flow, by when they finished (newest first, paged by the last row's time and id), and counted
        assertThat(q.jobs(new Queries.JobFilter(null, null, null, null, flow, null, null, null)).items()).hasSize(4);
        assertThat(q.jobs(new Queries.JobFilter(null, null, null, null, flow + 1000, null, null, null)).count()).isZero();
        Queries.JobPage hour = q.jobs(new Queries.JobFilter(null, null, null, null, null,
                now.minus(Duration.ofMinutes(60)), now.plusSeconds(1), null));
        assertThat(hour.items()).extracting(j -> j.get("state")).containsExactly("failed", "succeeded", "succeeded");
        assertThat(hour.count()).isEqualTo(3);
        Map<String, Object> second = hour.items().get(1);
        Queries.JobPage rest = q.jobs(new Queries.JobFilter(null, null, null, null, null, now.minus(Duration.ofMinutes(60)),
                Instant.parse((String) second.get("finished_at")), ((Number) second.get("id")).longValue()));
        assertThat(rest.items()).as("the page after the second row").hasSize(1)
                .allSatisfy(j -> assertThat(Instant.parse((String) j.get("finished_at"))).isBefore(now.minus(Duration.ofMinutes(49))));
        assertThat(q.jobs(new Queries.JobFilter(null, "failed", null, "card service", null, now.minus(Duration.ofHours(3)),
                null, null)).items()).hasSize(1);
        assertThat(q.jobs(new Queries.JobFilter(null, null, null, null, null, null, now.minus(Duration.ofMinutes(80)), null))
                .items()).as("finished before 80 minutes ago").hasSize(1);
        assertThat(q.jobs(Queries.JobFilter.of(null, null, null, null, null)).count()).isEqualTo(5);
        assertThat(q.flowCount(null, null)).isEqualTo(2);
        assertThat(q.flowCount("succeeded", "site-1")).isZero();
        List<Map<String, Object>> unresolved = q.ledger(null, null, null, null);
        assertThat(unresolved).extracting(e -> e.get("natural_key")).containsExactly("k2", "k1", "k4");
        assertThat(unresolved).allSatisfy(e -> assertThat(e).doesNotContainKey("data"));
        assertThat((String) unresolved.get(0).get("updated_at")).as("ISO-8601").endsWith("Z");
        assertThat(q.ledger("git.repository", "confirmed", null, null)).extracting(e -> e.get("natural_key"))
                .containsExactly("k3");
        List<Map<String, Object>> ofSite = q.ledger(null, null, "site-1", null);
        assertThat(ofSite).extracting(e -> e.get("natural_key")).containsExactly("k4", "k3", "k2", "k1");
        long third = ((Number) ofSite.get(2).get("id")).longValue();
        assertThat(q.ledger(null, null, "site-1", third)).as("older than the third").extracting(e -> e.get("natural_key"))
                .containsExactly("k1");
        Map<String, List<Map<String, Object>>> parts = q.flowParts(flow);
        assertThat(parts.get("jobs")).hasSize(4);
        assertThat(parts.get("ledger")).hasSize(4);
    }

    private static void job(Connection c, String queue, String state, Instant finished, Long flow) throws SQLException {
        insert(c, "INSERT INTO cv_job (queue, kind, payload, state, run_at, max_attempts, created_at, finished_at, flow_id)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", queue, "test.kind", "{\"secret\":\"payload\"}", state,
                Instant.now(), 3, Instant.now(), finished, flow);
    }

    private static void ledger(Connection c, String kind, String key, long flow, String state, Instant updated)
            throws SQLException {
        insert(c, "INSERT INTO cv_ledger (kind, natural_key, flow_id, subject, state, safety, data, created_at, updated_at)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", kind, key, flow, "site-1", state, "constraint",
                "{\"password\":\"never-shown\"}", updated, updated);
    }

    private static void insert(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(current == null ? sql : current.expand(sql))) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i] instanceof Instant t ? Queries.at(t) : args[i]);
            }
            ps.executeUpdate();
        }
    }

    private static long one(Connection c, String sql) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(current == null ? sql : current.expand(sql));
                var rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
