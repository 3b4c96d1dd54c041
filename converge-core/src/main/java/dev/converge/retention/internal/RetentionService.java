package dev.converge.retention.internal;

import static dev.converge.store.internal.Templates.sql;

import dev.converge.store.internal.Dialects;
import dev.converge.retention.Retention;
import dev.converge.retention.RetentionPolicy;
import dev.converge.retention.RetentionReport;
import dev.converge.store.internal.Dialect;
import dev.converge.store.Params;
import dev.converge.store.Sql;
import dev.converge.store.Store;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The engine's {@link Retention}. */
public final class RetentionService implements Retention {
    private static final Logger log = LoggerFactory.getLogger(Retention.class);
    static final String[] FINISHED = {"succeeded", "cancelled", "failed"};
    private static final String UNRESOLVED = "('claimed', 'uncertain', 'deleting')";
    private static final String FLOW_DUE = "f.state IN ('succeeded', 'failed') AND f.finished_at < {now+:flow_ms}";
    private static final String JOB_FREE = " AND NOT EXISTS (SELECT 1 FROM cv_ledger l WHERE l.owner_job_id = j.id "
            + "AND l.state IN " + UNRESOLVED + ") AND NOT EXISTS (SELECT 1 FROM cv_token t WHERE t.owner_job_id = j.id "
            + "AND t.state = 'checked_out')";

    private final Store store;
    private final RetentionPolicy policy;
    private final List<Sql> jobsByState = new ArrayList<>();
    private final List<Sql> batchesByState = new ArrayList<>();
    private final List<Sql> chainsByState = new ArrayList<>();
    private final Sql jobsOfDueFlows;
    private final Sql batchesOfDueFlows;
    private final Sql chainsOfDueFlows;
    private final Sql dueFlows;
    private final List<java.util.function.Consumer<RetentionReport>> listeners =
            new java.util.concurrent.CopyOnWriteArrayList<>();

    public RetentionService(Store store, RetentionPolicy policy) {
        this.store = store;
        this.policy = policy;
        Dialect d = Dialects.forUrl(store.config().url(), store.config().schema());
        for (String s : FINISHED) {
            // the state is a literal, so PostgreSQL matches the partial "finished" indexes of V7
            jobsByState.add(sql(d, "SELECT j.id FROM cv_job j WHERE j.state = '" + s + "' "
                    + "AND j.finished_at < {now+:age_ms} "
                    + "AND (j.batch_id IS NULL OR NOT EXISTS (SELECT 1 FROM cv_batch b WHERE b.id = j.batch_id "
                    + "AND b.state = 'running')) "
                    + "AND (j.chain_id IS NULL OR NOT EXISTS (SELECT 1 FROM cv_chain ch WHERE ch.id = j.chain_id "
                    + "AND ch.state = 'running')) "
                    + "AND (j.flow_id IS NULL OR NOT EXISTS (SELECT 1 FROM cv_flow f WHERE f.id = j.flow_id))"
                    + JOB_FREE + " ORDER BY j.finished_at LIMIT :limit"));
            batchesByState.add(sql(d, "SELECT b.id FROM cv_batch b WHERE b.state = '" + s + "' "
                    + "AND b.finished_at < {now+:age_ms} "
                    + "AND NOT EXISTS (SELECT 1 FROM cv_job j WHERE j.batch_id = b.id) "
                    + "AND (b.chain_id IS NULL OR NOT EXISTS (SELECT 1 FROM cv_chain ch WHERE ch.id = b.chain_id "
                    + "AND ch.state = 'running')) "
                    + "AND (b.flow_id IS NULL OR NOT EXISTS (SELECT 1 FROM cv_flow f WHERE f.id = b.flow_id)) "
                    + "ORDER BY b.finished_at LIMIT :limit"));
            chainsByState.add(sql(d, "SELECT ch.id FROM cv_chain ch WHERE ch.state = '" + s + "' "
                    + "AND ch.finished_at < {now+:age_ms} "
                    + "AND NOT EXISTS (SELECT 1 FROM cv_job j WHERE j.chain_id = ch.id) "
                    + "AND NOT EXISTS (SELECT 1 FROM cv_batch b WHERE b.chain_id = ch.id) "
                    + "AND (ch.flow_id IS NULL OR NOT EXISTS (SELECT 1 FROM cv_flow f WHERE f.id = ch.flow_id)) "
                    + "ORDER BY ch.finished_at LIMIT :limit"));
        }
        jobsOfDueFlows = sql(d, "SELECT j.id FROM cv_flow f JOIN cv_job j ON j.flow_id = f.id WHERE " + FLOW_DUE
                + " AND j.state IN ('succeeded', 'cancelled', 'failed')" + JOB_FREE + " LIMIT :limit");
        batchesOfDueFlows = sql(d, "SELECT b.id FROM cv_flow f JOIN cv_batch b ON b.flow_id = f.id WHERE " + FLOW_DUE
                + " AND b.state <> 'running' AND NOT EXISTS (SELECT 1 FROM cv_job j WHERE j.batch_id = b.id) LIMIT :limit");
        chainsOfDueFlows = sql(d, "SELECT ch.id FROM cv_flow f JOIN cv_chain ch ON ch.flow_id = f.id WHERE " + FLOW_DUE
                + " AND ch.state <> 'running' AND NOT EXISTS (SELECT 1 FROM cv_job j WHERE j.chain_id = ch.id) "
                + "AND NOT EXISTS (SELECT 1 FROM cv_batch b WHERE b.chain_id = ch.id) LIMIT :limit");
        dueFlows = sql(d, "SELECT f.id FROM cv_flow f WHERE " + FLOW_DUE
                + " AND NOT EXISTS (SELECT 1 FROM cv_job j WHERE j.flow_id = f.id) "
                + "AND NOT EXISTS (SELECT 1 FROM cv_batch b WHERE b.flow_id = f.id) "
                + "AND NOT EXISTS (SELECT 1 FROM cv_chain ch WHERE ch.flow_id = f.id) "
                + "AND NOT EXISTS (SELECT 1 FROM cv_ledger l WHERE l.flow_id = f.id AND l.state IN " + UNRESOLVED + ") "
                + "ORDER BY f.finished_at LIMIT :limit");
    }

    /** Tells {@code listener} what each round deleted (metrics). */
    public void onRound(java.util.function.Consumer<RetentionReport> listener) {
        listeners.add(listener);
    }

    public RetentionPolicy policy() {
        return policy;
    }

    /**
     * One round: jobs first, then the batches and chains they left empty, then flows with nothing
     * left in them. Each kind runs at most {@code maxBatchesPerRound} batches, each its own
     * transaction.
     */
    public RetentionReport round() {
        Tally t = new Tally();
        for (int i = 0; i < FINISHED.length; i++) {
            Duration age = policy.ageOf(FINISHED[i]);
            t.jobs += drain(jobsByState.get(i), age, "cv_job", " AND state IN ('succeeded', 'cancelled', 'failed')", t);
        }
        t.jobs += drain(jobsOfDueFlows, null, "cv_job", " AND state IN ('succeeded', 'cancelled', 'failed')", t);
        for (int i = 0; i < FINISHED.length; i++) {
            t.batches += drain(batchesByState.get(i), policy.ageOf(FINISHED[i]), "cv_batch", " AND state <> 'running'", t);
        }
        t.batches += drain(batchesOfDueFlows, null, "cv_batch", " AND state <> 'running'", t);
        for (int i = 0; i < FINISHED.length; i++) {
            t.chains += drain(chainsByState.get(i), policy.ageOf(FINISHED[i]), "cv_chain", " AND state <> 'running'", t);
        }
        t.chains += drain(chainsOfDueFlows, null, "cv_chain", " AND state <> 'running'", t);
        t.flows += drainFlows(t);
        RetentionReport r = new RetentionReport(t.jobs, t.batches, t.chains, t.flows, t.events, t.compensations, t.largest);
        if (r.total() > 0) {
            log.info("retention deleted {} jobs, {} batches, {} chains, {} flows ({} flow events, {} compensations)",
                    r.jobs(), r.batches(), r.chains(), r.flows(), r.flowEvents(), r.compensations());
        }
        for (java.util.function.Consumer<RetentionReport> l : listeners) {
            l.accept(r);
        }
        return r;
    }

    private static final class Tally {
        long jobs;
        long batches;
        long chains;
        long flows;
        long events;
        long compensations;
        int largest;
    }

    private Params params(Duration age) {
        Params p = Params.of().now(store.clock().sqlNow()).integer("limit", policy.batchSize())
                .bigint("flow_ms", -policy.flows().toMillis());
        if (age != null) {
            p.bigint("age_ms", -age.toMillis());
        }
        return p;
    }

    private long drain(Sql select, Duration age, String table, String recheck, Tally t) {
        long total = 0;
        for (int b = 0; b < policy.maxBatchesPerRound(); b++) {
            int n = store.inTransaction(c -> {
                List<Long> ids = select.query(c, params(age), rs -> rs.getLong(1));
                return ids.isEmpty() ? 0 : deleteIds(c, table, ids, recheck);
            });
            t.largest = Math.max(t.largest, n);
            total += n;
            if (n < policy.batchSize()) {
                break;
            }
        }
        return total;
    }

    private long drainFlows(Tally t) {
        long total = 0;
        for (int b = 0; b < policy.maxBatchesPerRound(); b++) {
            int n = store.inTransaction(c -> {
                List<Long> ids = dueFlows.query(c, params(null), rs -> rs.getLong(1));
                if (ids.isEmpty()) {
                    return 0;
                }
                // a flow's history (its events and compensations) goes with it, in the same transaction
                t.events += deleteWhere(c, "cv_flow_event", "flow_id", ids);
                t.compensations += deleteWhere(c, "cv_compensation", "flow_id", ids);
                return deleteIds(c, "cv_flow", ids, " AND state IN ('succeeded', 'failed')");
            });
            t.largest = Math.max(t.largest, n);
            total += n;
            if (n < policy.batchSize()) {
                break;
            }
        }
        return total;
    }

    private int deleteIds(Connection c, String table, List<Long> ids, String recheck) throws SQLException {
        return deleteWhere(c, table, "id", ids, recheck);
    }

    private int deleteWhere(Connection c, String table, String column, List<Long> ids) throws SQLException {
        return deleteWhere(c, table, column, ids, "");
    }

    private int deleteWhere(Connection c, String table, String column, List<Long> ids, String recheck)
            throws SQLException {
        StringJoiner in = new StringJoiner(",", "(", ")");
        for (Long id : ids) {
            in.add(Long.toString(id)); // numbers only: nothing a caller wrote reaches this text
        }
        try (Statement st = c.createStatement()) {
            return st.executeUpdate("DELETE FROM " + store.expand(table) + " WHERE " + column + " IN " + in + recheck);
        }
    }
}
