package dev.converge.retention;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.Converge;
import dev.converge.flow.Harness;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import dev.converge.store.Store;
import dev.converge.testkit.SettableClock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Retention on H2 and PostgreSQL: old finished rows go in bounded batches; live and referenced rows stay. */
class RetentionTest {

    /** docs/operations.md's snippet, as written there: the ages it sets are the engine's. */
    @Test
    void theOperationsPageSetsTheAges() {
        try (Store store = Store.open(dev.converge.store.StoreConfig.newBuilder()
                .url("jdbc:h2:mem:retention-page;DB_CLOSE_DELAY=-1").build())) {
            Converge engine = Converge.builder(store)
                    .maintenance(m -> m.retention(RetentionPolicy.defaults()
                            .failedAfter(Duration.ofDays(30)).flowsAfter(Duration.ofDays(90))))
                    // or .maintenance(m -> m.noRetention()) to keep everything
                    .build();
            RetentionPolicy policy = engine.retention().orElseThrow().policy();
            assertThat(policy.ageOf("failed")).isEqualTo(Duration.ofDays(30));
            assertThat(policy.flows()).isEqualTo(Duration.ofDays(90));
            engine.close();
        }
    }

    static final Instant NOW = Instant.parse("2026-06-01T12:00:00Z");
    static final RetentionPolicy POLICY = RetentionPolicy.defaults().batchSize(100).maxBatchesPerRound(4);

    static Instant ago(Duration d) {
        return NOW.minus(d);
    }

    static long insert(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql, new String[] {"id"})) {
            for (int i = 0; i < args.length; i++) {
                Object a = args[i];
                ps.setObject(i + 1, a instanceof Instant t ? Timestamp.from(t) : a);
            }
            ps.executeUpdate();
            try (ResultSet rs = ps.getGeneratedKeys()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    static long job(Connection c, String state, Instant finishedAt, Long batch, Long chain, Long flow) throws SQLException {
        return insert(c, "INSERT INTO cv_job (queue, kind, payload, state, run_at, max_attempts, created_at, finished_at, "
                + "batch_id, chain_id, flow_id) VALUES ('default', 'ret.t', '{}', ?, ?, 3, ?, ?, ?, ?, ?)", state,
                ago(Duration.ofDays(60)), ago(Duration.ofDays(60)), finishedAt, batch, chain, flow);
    }

    static long batch(Connection c, String state, Instant finishedAt, Long chain, Long flow) throws SQLException {
        return insert(c, "INSERT INTO cv_batch (name, state, allow_failures, total, pending, created_at, finished_at, "
                + "chain_id, flow_id) VALUES ('b', ?, FALSE, 1, 0, ?, ?, ?, ?)", state, ago(Duration.ofDays(60)),
                finishedAt, chain, flow);
    }

    static long chain(Connection c, String state, Instant finishedAt, Long flow) throws SQLException {
        return insert(c, "INSERT INTO cv_chain (name, state, position, size, links, created_at, finished_at, flow_id) "
                + "VALUES ('ch', ?, 0, 1, '[]', ?, ?, ?)", state, ago(Duration.ofDays(60)), finishedAt, flow);
    }

    static long flow(Connection c, String subject, String state, Instant finishedAt) throws SQLException {
        long id = insert(c, "INSERT INTO cv_flow (kind, subject, state, created_at, updated_at, finished_at) "
                + "VALUES ('ret.flow', ?, ?, ?, ?, ?)", subject, state, ago(Duration.ofDays(60)), ago(Duration.ofDays(60)),
                finishedAt);
        insert(c, "INSERT INTO cv_flow_event (flow_id, at, to_state) VALUES (?, ?, 'running')", id, ago(Duration.ofDays(60)));
        insert(c, "INSERT INTO cv_flow_event (flow_id, at, to_state) VALUES (?, ?, ?)", id, ago(Duration.ofDays(59)), state);
        insert(c, "INSERT INTO cv_compensation (flow_id, kind, payload, state, created_at) VALUES (?, 'undo', '{}', "
                + "'done', ?)", id, ago(Duration.ofDays(59)));
        return id;
    }

    static long ledger(Connection c, String key, String state, Long flow, Long ownerJob) throws SQLException {
        return insert(c, "INSERT INTO cv_ledger (kind, natural_key, flow_id, subject, state, safety, owner_job_id, "
                + "owner_epoch, created_at, updated_at) VALUES ('vm', ?, ?, 's', ?, 'safe', ?, 1, ?, ?)", key, flow, state,
                ownerJob, ago(Duration.ofDays(50)), ago(Duration.ofDays(50)));
    }

    static boolean exists(Store s, String table, long id) {
        return s.withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM " + table + " WHERE id = ?")) {
                ps.setLong(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next();
                }
            }
        });
    }

    static long count(Store s, String table) {
        return s.withConnection(c -> {
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + table)) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void deletesOldFinishedRowsInBoundedBatchesAndKeepsLiveAndReferencedOnes(String kind) {
        try (Harness h = new Harness(kind, new SettableClock(NOW))) {
            Store s = h.store();
            Instant old = ago(Duration.ofDays(2));
            Instant oldest = ago(Duration.ofDays(40));
            record Row(String table, long id) {
            }
            List<Row> goneRows = new ArrayList<>();
            List<Row> keptRows = new ArrayList<>();
            long[] many = new long[1];
            s.inTransaction(c -> {
                // 650 plain old succeeded jobs: more than one round of 4 batches of 100
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO cv_job (queue, kind, payload, state, run_at, "
                        + "max_attempts, created_at, finished_at) VALUES ('default', 'ret.bulk', '{}', 'succeeded', ?, 3, ?, ?)")) {
                    for (int i = 0; i < 650; i++) {
                        ps.setTimestamp(1, Timestamp.from(old));
                        ps.setTimestamp(2, Timestamp.from(old));
                        ps.setTimestamp(3, Timestamp.from(old.plusMillis(i)));
                        ps.addBatch();
                    }
                    ps.executeBatch();
                }
                many[0] = 650;
                // kept: too young, failed within its 7 days, not finished
                keptRows.add(new Row("cv_job", job(c, "succeeded", ago(Duration.ofHours(23)), null, null, null)));
                keptRows.add(new Row("cv_job", job(c, "failed", ago(Duration.ofDays(3)), null, null, null)));
                keptRows.add(new Row("cv_job", job(c, "running", null, null, null, null)));
                keptRows.add(new Row("cv_job", job(c, "available", null, null, null, null)));
                goneRows.add(new Row("cv_job", job(c, "failed", ago(Duration.ofDays(8)), null, null, null)));
                goneRows.add(new Row("cv_job", job(c, "cancelled", old, null, null, null)));
                // a running batch keeps its finished jobs; a finished old batch goes with its jobs
                long running = batch(c, "running", null, null, null);
                keptRows.add(new Row("cv_batch", running));
                keptRows.add(new Row("cv_job", job(c, "succeeded", old, running, null, null)));
                long done = batch(c, "succeeded", old, null, null);
                goneRows.add(new Row("cv_batch", done));
                goneRows.add(new Row("cv_job", job(c, "succeeded", old, done, null, null)));
                // a finished old batch whose job is still running stays
                long draining = batch(c, "cancelled", old, null, null);
                keptRows.add(new Row("cv_batch", draining));
                keptRows.add(new Row("cv_job", job(c, "running", null, draining, null, null)));
                // a running chain keeps its finished links; a finished one goes once its links are gone
                long runningChain = chain(c, "running", null, null);
                keptRows.add(new Row("cv_chain", runningChain));
                keptRows.add(new Row("cv_job", job(c, "succeeded", old, null, runningChain, null)));
                long doneChain = chain(c, "succeeded", old, null);
                goneRows.add(new Row("cv_chain", doneChain));
                goneRows.add(new Row("cv_job", job(c, "succeeded", old, null, doneChain, null)));
                long chainBatch = batch(c, "succeeded", old, doneChain, null);
                goneRows.add(new Row("cv_batch", chainBatch));
                goneRows.add(new Row("cv_job", job(c, "succeeded", old, chainBatch, doneChain, null)));
                // a job owning an unresolved ledger entry stays; a settled entry's owner goes; entries always stay
                long owner = job(c, "failed", ago(Duration.ofDays(30)), null, null, null);
                keptRows.add(new Row("cv_job", owner));
                keptRows.add(new Row("cv_ledger", ledger(c, "k1", "uncertain", null, owner)));
                long settledOwner = job(c, "succeeded", old, null, null, null);
                goneRows.add(new Row("cv_job", settledOwner));
                keptRows.add(new Row("cv_ledger", ledger(c, "k2", "confirmed", null, settledOwner)));
                // a job holding a checked-out token stays
                long tokenOwner = job(c, "succeeded", old, null, null, null);
                keptRows.add(new Row("cv_job", tokenOwner));
                insert(c, "INSERT INTO cv_token (pool, token, state, owner_job_id, owner_epoch, created_at) "
                        + "VALUES ('p', 't1', 'checked_out', ?, 1, ?)", tokenOwner, old);
                // an old finished flow goes with its jobs, batches, chains, events and compensations; its ledger stays
                long oldFlow = flow(c, "f-old", "succeeded", oldest);
                goneRows.add(new Row("cv_flow", oldFlow));
                long flowChain = chain(c, "succeeded", oldest, oldFlow);
                goneRows.add(new Row("cv_chain", flowChain));
                long flowBatch = batch(c, "succeeded", oldest, null, oldFlow);
                goneRows.add(new Row("cv_batch", flowBatch));
                goneRows.add(new Row("cv_job", job(c, "succeeded", oldest, flowBatch, null, oldFlow)));
                goneRows.add(new Row("cv_job", job(c, "failed", oldest, null, flowChain, oldFlow)));
                keptRows.add(new Row("cv_ledger", ledger(c, "k3", "confirmed", oldFlow, null)));
                // kept flows: one an unresolved ledger entry points at, one needing attention, one young, one running
                long pointedAt = flow(c, "f-ledger", "failed", oldest);
                keptRows.add(new Row("cv_flow", pointedAt));
                keptRows.add(new Row("cv_ledger", ledger(c, "k4", "deleting", pointedAt, null)));
                keptRows.add(new Row("cv_flow", flow(c, "f-attention", "needs_attention", oldest)));
                long young = flow(c, "f-young", "succeeded", ago(Duration.ofDays(10)));
                keptRows.add(new Row("cv_flow", young));
                keptRows.add(new Row("cv_job", job(c, "succeeded", ago(Duration.ofDays(10)), null, null, young)));
                long live = flow(c, "f-live", "running", null);
                keptRows.add(new Row("cv_flow", live));
                keptRows.add(new Row("cv_job", job(c, "succeeded", oldest, null, null, live)));
                // a finished flow with a job still running stays, the job too
                long draining2 = flow(c, "f-draining", "failed", oldest);
                keptRows.add(new Row("cv_flow", draining2));
                keptRows.add(new Row("cv_job", job(c, "running", null, null, null, draining2)));
                return null;
            });
            long jobsBefore = count(s, "cv_job");
            Retention retention = dev.converge.Converge.builder(s).maintenance(m -> m.retention(POLICY)).build().retention().orElseThrow();

            RetentionReport first = retention.round();
            System.out.printf("[retention %s] round 1: %s%n", kind, first);
            assertThat(first.largestBatch()).as("no delete statement removes more than the batch size").isLessThanOrEqualTo(100);
            assertThat(first.jobs()).as("a round runs at most 4 batches of 100 for the bulk jobs").isLessThan(650 + 20);
            RetentionReport r;
            int rounds = 1;
            do {
                r = retention.round();
                rounds++;
                System.out.printf("[retention %s] round %d: %s%n", kind, rounds, r);
                assertThat(r.largestBatch()).isLessThanOrEqualTo(100);
            } while (r.total() > 0 && rounds < 10);
            assertThat(r.total()).as("rounds converge").isZero();

            for (Row row : goneRows) {
                assertThat(exists(s, row.table(), row.id())).as("%s %d deleted", row.table(), row.id()).isFalse();
            }
            for (Row row : keptRows) {
                assertThat(exists(s, row.table(), row.id())).as("%s %d kept", row.table(), row.id()).isTrue();
            }
            long jobsAfter = count(s, "cv_job");
            long keptJobs = keptRows.stream().filter(x -> x.table().equals("cv_job")).count();
            assertThat(jobsAfter).isEqualTo(keptJobs);
            assertThat(jobsBefore - jobsAfter).isEqualTo(many[0] + goneRows.stream().filter(x -> x.table().equals("cv_job")).count());
            assertThat(count(s, "cv_ledger")).as("ledger entries are never deleted").isEqualTo(4);
            // 6 flows had 2 events and 1 compensation each; the one deleted flow took its own
            assertThat(count(s, "cv_flow_event")).isEqualTo(10);
            assertThat(count(s, "cv_compensation")).isEqualTo(5);
        }
    }

    static final JobType<Integer> TICK = JobType.of("ret.tick", Integer.class);

    /**
     * A steady stream of jobs through a real engine whose retention keeps succeeded jobs 300ms:
     * the table's size stays flat instead of growing with the jobs run. Figures are printed.
     */
    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void tableSizeStaysFlatUnderASteadyStream(String kind) throws Exception {
        try (Harness h = new Harness(kind)) {
            Converge engine = h.engine(b -> b.handle(TICK, (n, ctx) -> { })
                    .queue("default", 4)
                    .maintenance(m -> m.retention(RetentionPolicy.defaults().succeededAfter(Duration.ofMillis(300))
                            .every(Duration.ofMillis(200)).batchSize(200))));
            int perSecond = 300;
            int seconds = 8;
            List<Long> sizes = new ArrayList<>();
            int enqueued = 0;
            for (int sec = 0; sec < seconds; sec++) {
                long start = System.nanoTime();
                for (int slice = 0; slice < 10; slice++) {
                    List<Job<Integer>> burst = new ArrayList<>();
                    for (int i = 0; i < perSecond / 10; i++) {
                        burst.add(Job.of(TICK, enqueued++));
                    }
                    engine.enqueueAll(burst);
                    Thread.sleep(Math.max(0, (start + (slice + 1) * 100_000_000L - System.nanoTime()) / 1_000_000));
                }
                sizes.add(count(h.store(), "cv_job"));
            }
            Thread.sleep(1500);
            long finalSize = count(h.store(), "cv_job");
            System.out.printf("[retention %s] steady stream of %d jobs/s for %ds (%d jobs): cv_job rows each second %s, "
                    + "1.5s after the stream %d%n", kind, perSecond, seconds, enqueued, sizes, finalSize);
            // without retention the table would hold every job enqueued; with it, about the last few hundred ms of them
            assertThat(sizes.get(sizes.size() - 1)).as("rows at the end of the stream").isLessThan(enqueued / 3);
            assertThat(finalSize).as("rows once the stream stopped").isLessThan(perSecond);
        }
    }
}
