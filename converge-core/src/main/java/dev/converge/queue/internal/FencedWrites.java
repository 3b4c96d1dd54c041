package dev.converge.queue.internal;

import static dev.converge.store.internal.Templates.sql;

import dev.converge.lease.JobLease;
import dev.converge.queue.internal.Decision.Finish;
import dev.converge.queue.internal.Decision.Retry;
import dev.converge.store.internal.Dialect;
import dev.converge.store.Params;
import dev.converge.store.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The fenced writes of many deliveries at once: finishing them, putting them back, extending
 * their leases. A row changes only while it is still running under the delivery's epoch; the
 * answer says, per delivery, whether its write landed (false: the lease had moved on).
 *
 * <p>Rows are written in id order, so two such transactions touching the same rows (a heartbeat
 * and a completion batch) lock them in the same order and cannot deadlock. On PostgreSQL a whole
 * batch is one {@code UPDATE ... FROM unnest(arrays)}; elsewhere it is a JDBC batch of one-row
 * updates, whose update counts carry the same answer.
 */
final class FencedWrites {
    private static final String FENCE = "cv_job.id = t.id AND cv_job.epoch = t.epoch AND cv_job.state = 'running'";
    private static final String RETURNING = " RETURNING cv_job.id, cv_job.epoch";

    private final Dialect dialect;
    private final boolean arrays;
    private final Sql finishOne;
    private final Sql retryOne;
    private final Sql extendOne;
    private final Sql finishMany;
    private final Sql retryMany;
    private final Sql extendMany;

    FencedWrites(Dialect dialect) {
        this.dialect = dialect;
        this.arrays = dialect.updatesFromArrays();
        // lease_owner stays: the node that ran a finished job's last attempt
        String finishSet = "finished_at = {now}, lease_expires_at = NULL";
        // lease_owner stays until the next lease: the node that ran the attempt just put back
        String retrySet = "state = 'available', lease_expires_at = NULL";
        this.finishOne = sql(dialect, "UPDATE cv_job SET state = :state, last_error = COALESCE(:error, last_error), "
                + finishSet + " WHERE id = :id AND epoch = :epoch AND state = 'running'");
        this.retryOne = sql(dialect, "UPDATE cv_job SET " + retrySet + ", run_at = {now+:delay_ms}, "
                + "attempt = attempt - :refund, last_error = COALESCE(:error, last_error) "
                + "WHERE id = :id AND epoch = :epoch AND state = 'running'");
        this.extendOne = sql(dialect, "UPDATE cv_job SET lease_expires_at = {now+:lease_ms} "
                + "WHERE id = :id AND epoch = :epoch AND state = 'running'");
        this.finishMany = !arrays ? null : sql(dialect, "UPDATE cv_job SET state = t.state, "
                + "last_error = COALESCE(t.error, cv_job.last_error), " + finishSet
                + " FROM unnest(CAST(:ids AS BIGINT[]), CAST(:epochs AS BIGINT[]), CAST(:states AS TEXT[]), "
                + "CAST(:errors AS TEXT[])) AS t(id, epoch, state, error) WHERE " + FENCE + RETURNING);
        this.retryMany = !arrays ? null : sql(dialect, "UPDATE cv_job SET " + retrySet + ", "
                + "run_at = {now} + t.delay_ms * INTERVAL '1 millisecond', attempt = cv_job.attempt - t.refund, "
                + "last_error = COALESCE(t.error, cv_job.last_error) FROM unnest(CAST(:ids AS BIGINT[]), "
                + "CAST(:epochs AS BIGINT[]), CAST(:delays AS BIGINT[]), CAST(:errors AS TEXT[]), CAST(:refunds AS INT[])) "
                + "AS t(id, epoch, delay_ms, error, refund) WHERE " + FENCE + RETURNING);
        this.extendMany = !arrays ? null : sql(dialect, "UPDATE cv_job SET lease_expires_at = {now+:lease_ms} "
                + "FROM unnest(CAST(:ids AS BIGINT[]), CAST(:epochs AS BIGINT[])) AS t(id, epoch) WHERE " + FENCE + RETURNING);
    }

    boolean[] finish(Connection c, List<Finish> finishes, Instant now) throws SQLException {
        List<Finish> rows = byId(finishes, Finish::lease);
        if (arrays) {
            Params p = leaseArrays(c, rows, Finish::lease).now(now)
                    .array("states", array(c, Types.VARCHAR, rows, f -> f.state().sql()))
                    .array("errors", array(c, Types.VARCHAR, rows, Finish::error));
            return landed(c, finishMany, p, finishes, Finish::lease);
        }
        return batch(c, finishOne, rows, finishes, Finish::lease, f -> Params.of().now(now).text("state", f.state().sql())
                .text("error", f.error()));
    }

    boolean[] retry(Connection c, List<Retry> retries, Instant now) throws SQLException {
        List<Retry> rows = byId(retries, Retry::lease);
        if (arrays) {
            Params p = leaseArrays(c, rows, Retry::lease).now(now)
                    .array("delays", array(c, Types.BIGINT, rows, r -> Math.max(0, r.delayMs())))
                    .array("errors", array(c, Types.VARCHAR, rows, Retry::error))
                    .array("refunds", array(c, Types.INTEGER, rows, r -> r.refundAttempt() ? 1 : 0));
            return landed(c, retryMany, p, retries, Retry::lease);
        }
        return batch(c, retryOne, rows, retries, Retry::lease, r -> Params.of().now(now)
                .bigint("delay_ms", Math.max(0, r.delayMs())).text("error", r.error())
                .integer("refund", r.refundAttempt() ? 1 : 0));
    }

    boolean[] extend(Connection c, List<JobLease> leases, long leaseMs, Instant now) throws SQLException {
        List<JobLease> rows = byId(leases, l -> l);
        if (arrays) {
            Params p = leaseArrays(c, rows, l -> l).now(now).bigint("lease_ms", leaseMs);
            return landed(c, extendMany, p, leases, l -> l);
        }
        return batch(c, extendOne, rows, leases, l -> l, l -> Params.of().now(now).bigint("lease_ms", leaseMs));
    }

    private static <T> List<T> byId(List<T> items, Function<T, JobLease> lease) {
        List<T> sorted = new ArrayList<>(items);
        sorted.sort(Comparator.comparingLong((T t) -> lease.apply(t).jobId()).thenComparingLong(t -> lease.apply(t).epoch()));
        return sorted;
    }

    private <T> Params leaseArrays(Connection c, List<T> rows, Function<T, JobLease> lease) throws SQLException {
        return Params.of().array("ids", array(c, Types.BIGINT, rows, t -> lease.apply(t).jobId()))
                .array("epochs", array(c, Types.BIGINT, rows, t -> lease.apply(t).epoch()));
    }

    private <T> java.sql.Array array(Connection c, int sqlType, List<T> rows, Function<T, Object> value)
            throws SQLException {
        // typed, not Object[]: the PostgreSQL driver sends a Long[], Integer[] or String[] in its binary
        // form, while an Object[] is formatted as an array literal, element by element, for the server to parse
        Object[] values = switch (sqlType) {
            case Types.BIGINT -> new Long[rows.size()];
            case Types.INTEGER -> new Integer[rows.size()];
            case Types.VARCHAR -> new String[rows.size()];
            default -> new Object[rows.size()];
        };
        for (int i = 0; i < values.length; i++) {
            values[i] = value.apply(rows.get(i));
        }
        return c.createArrayOf(dialect.arrayElementType(sqlType), values);
    }

    /** Runs a many-row update returning (id, epoch) of the rows it changed; true for the deliveries among them. */
    private static <T> boolean[] landed(Connection c, Sql update, Params p, List<T> items, Function<T, JobLease> lease)
            throws SQLException {
        // a row is updated at most once per statement, so each id comes back at most once, with the
        // epoch it was fenced by: keyed by id alone, without hashing a lease record per row
        Map<Long, Long> changed = new HashMap<>();
        try (PreparedStatement ps = update.prepare(c, p); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                changed.put(rs.getLong(1), rs.getLong(2));
            }
        }
        return applied(changed, items, lease);
    }

    /** {@code result[i]}: the write of {@code items.get(i)} landed (its id changed, under its epoch). */
    private static <T> boolean[] applied(Map<Long, Long> changed, List<T> items, Function<T, JobLease> lease) {
        boolean[] applied = new boolean[items.size()];
        for (int i = 0; i < applied.length; i++) {
            JobLease l = lease.apply(items.get(i));
            Long epoch = changed.get(l.jobId());
            applied[i] = epoch != null && epoch == l.epoch();
        }
        return applied;
    }

    /** A JDBC batch of one-row updates in id order; the update counts say which landed. */
    private static <T> boolean[] batch(Connection c, Sql one, List<T> sorted, List<T> items, Function<T, JobLease> lease,
            Function<T, Params> params) throws SQLException {
        Map<Long, Long> changed = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement(one.text())) {
            for (T t : sorted) {
                one.bind(ps, params.apply(t).bigint("id", lease.apply(t).jobId()).bigint("epoch", lease.apply(t).epoch()));
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            for (int i = 0; i < counts.length; i++) {
                // SUCCESS_NO_INFO would hide a lost lease; neither driver returns it for these statements
                if (counts[i] == Statement.SUCCESS_NO_INFO) {
                    throw new IllegalStateException("the driver did not report update counts; fencing needs them");
                }
                if (counts[i] > 0) {
                    // a row has one epoch at a time: writes of one id that landed all carry the same epoch
                    JobLease l = lease.apply(sorted.get(i));
                    changed.put(l.jobId(), l.epoch());
                }
            }
        }
        return applied(changed, items, lease);
    }
}
