package dev.converge.batch.internal;

import static dev.converge.store.internal.Templates.sql;

import dev.converge.batch.BatchProgress;
import dev.converge.batch.BatchState;
import dev.converge.store.internal.Dialect;
import dev.converge.store.Params;
import dev.converge.store.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/**
 * The SQL of {@code cv_batch}. Counters move by relative updates, which lock the batch row for
 * the rest of the finishing job's transaction: concurrent finishes on different nodes queue up
 * on that row, so the counts and the once-only flags stay exact.
 */
public final class BatchStore {
    /** A batch row with its stored callbacks. */
    public record BatchRow(BatchProgress progress, JobSpec thenJob, JobSpec catchJob, JobSpec finallyJob) {
    }

    private static final String COLUMNS = "id, name, state, allow_failures, total, pending, succeeded, failed, cancelled, "
            + "then_job, catch_job, finally_job, chain_id, chain_pos, flow_id, created_at, cancelled_at, finished_at";

    private final Sql insert;
    private final Sql count;
    private final Sql get;
    private final Sql cancel;
    private final Sql finish;
    private final Sql fireThen;
    private final Sql fireCatch;
    private final Sql fireFinally;
    private final Sql runningInFlow;

    public BatchStore(Dialect d) {
        insert = sql(d, "INSERT INTO cv_batch (name, state, allow_failures, total, pending, then_job, catch_job, "
                + "finally_job, chain_id, chain_pos, flow_id, created_at) VALUES (:name, 'running', :allow, :total, :total, "
                + ":then_job, :catch_job, :finally_job, :chain_id, :chain_pos, :flow_id, {now})");
        count = sql(d, "UPDATE cv_batch SET pending = pending - :n, succeeded = succeeded + :s, failed = failed + :f, "
                + "cancelled = cancelled + :c WHERE id = :id");
        get = sql(d, "SELECT " + COLUMNS + " FROM cv_batch WHERE id = :id");
        cancel = sql(d, "UPDATE cv_batch SET state = 'cancelled', cancelled_at = {now} WHERE id = :id AND state = 'running'");
        finish = sql(d, "UPDATE cv_batch SET finished_at = {now}, state = CASE WHEN state = 'running' THEN :final "
                + "ELSE state END WHERE id = :id AND finished_at IS NULL AND pending = 0");
        fireThen = sql(d, "UPDATE cv_batch SET then_fired = TRUE WHERE id = :id AND then_fired = FALSE");
        fireCatch = sql(d, "UPDATE cv_batch SET catch_fired = TRUE WHERE id = :id AND catch_fired = FALSE");
        fireFinally = sql(d, "UPDATE cv_batch SET finally_fired = TRUE WHERE id = :id AND finally_fired = FALSE");
        runningInFlow = sql(d, "SELECT id FROM cv_batch WHERE flow_id = :flow_id AND finished_at IS NULL ORDER BY id");
    }

    public long insert(Connection c, String name, boolean allowFailures, int total, JobSpec then, JobSpec catchJob,
            JobSpec finallyJob, Long chainId, Integer chainPos, Long flowId, Instant now) throws SQLException {
        Params p = Params.of().now(now).text("name", name).bool("allow", allowFailures).integer("total", total)
                .text("then_job", then == null ? null : then.toJson())
                .text("catch_job", catchJob == null ? null : catchJob.toJson())
                .text("finally_job", finallyJob == null ? null : finallyJob.toJson())
                .bigint("chain_id", chainId).integer("chain_pos", chainPos).bigint("flow_id", flowId);
        try (PreparedStatement ps = insert.prepareReturning(c, p, "id")) {
            ps.executeUpdate();
            try (ResultSet rs = ps.getGeneratedKeys()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** Counts jobs that ended: {@code n} fewer pending, split into succeeded, failed and cancelled. */
    public void count(Connection c, long id, int succeeded, int failed, int cancelled) throws SQLException {
        count.update(c, Params.of().bigint("id", id).integer("n", succeeded + failed + cancelled)
                .integer("s", succeeded).integer("f", failed).integer("c", cancelled));
    }

    public BatchRow get(Connection c, long id) throws SQLException {
        return get.queryOne(c, Params.of().bigint("id", id), BatchStore::row);
    }

    /** Moves a running batch to cancelled; false if it was not running. */
    public boolean cancel(Connection c, long id, Instant now) throws SQLException {
        return cancel.update(c, Params.of().now(now).bigint("id", id)) == 1;
    }

    /** Marks the batch finished once nothing is pending; false if not yet, or already. */
    public boolean finish(Connection c, long id, BatchState ifRunning, Instant now) throws SQLException {
        return finish.update(c, Params.of().now(now).bigint("id", id).text("final", ifRunning.sql())) == 1;
    }

    public boolean fireThen(Connection c, long id) throws SQLException {
        return fireThen.update(c, Params.of().bigint("id", id)) == 1;
    }

    public boolean fireCatch(Connection c, long id) throws SQLException {
        return fireCatch.update(c, Params.of().bigint("id", id)) == 1;
    }

    public boolean fireFinally(Connection c, long id) throws SQLException {
        return fireFinally.update(c, Params.of().bigint("id", id)) == 1;
    }

    public List<Long> unfinishedInFlow(Connection c, long flowId) throws SQLException {
        return runningInFlow.query(c, Params.of().bigint("flow_id", flowId), rs -> rs.getLong(1));
    }

    private static BatchRow row(ResultSet rs) throws SQLException {
        BatchProgress p = new BatchProgress(rs.getLong("id"), rs.getString("name"), BatchState.fromSql(rs.getString("state")),
                rs.getBoolean("allow_failures"), rs.getInt("total"), rs.getInt("pending"), rs.getInt("succeeded"),
                rs.getInt("failed"), rs.getInt("cancelled"), Sql.nullableLong(rs, "chain_id"),
                Sql.nullableInt(rs, "chain_pos"), Sql.nullableLong(rs, "flow_id"), Sql.instant(rs, "created_at"),
                Sql.instant(rs, "cancelled_at"), Sql.instant(rs, "finished_at"));
        return new BatchRow(p, JobSpec.fromJson(rs.getString("then_job")), JobSpec.fromJson(rs.getString("catch_job")),
                JobSpec.fromJson(rs.getString("finally_job")));
    }
}
