package dev.converge.queue.internal;

import static dev.converge.store.internal.Templates.sql;

import dev.converge.store.internal.Dialect;
import dev.converge.store.Params;
import dev.converge.store.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The fetch path: leases up to n due jobs of a queue, of the job types the node has handlers
 * for, in one transaction, raising each one's
 * epoch and attempt. Where the database skips locked rows cheaply (PostgreSQL) it is one
 * {@code UPDATE ... WHERE id = ANY(ARRAY(SELECT ... FOR UPDATE SKIP LOCKED))}.
 *
 * <p>H2 locks every row a {@code SELECT ... FOR UPDATE} reads and re-runs IN-subqueries row by
 * row, so a single statement cost as much as the queue was long (quadratic over a drain, and a
 * concurrent fetch found the whole queue locked). There the due ids are read first without
 * locks, in index order, stopping after n; then an UPDATE takes those still available and due, re-checked
 * under each row's lock: a row another fetch took meanwhile is simply not taken again.
 *
 * <p>A node leases only the types it handles, so in a fleet of mixed versions (a rolling deploy)
 * a node of the previous version leaves a new type's jobs to the nodes that know it, instead of
 * failing them for lack of a handler. The types are bound as parameters, one statement per number
 * of types (fixed for a node once it is built).
 */
final class LeaseStatement {
    static final String[] LEASED_COLUMNS = {"id", "queue", "kind", "payload", "epoch", "attempt",
        "max_attempts", "timeout_ms", "batch_id", "chain_id", "chain_pos", "flow_id", "created_at", "run_at"};
    private static final String SET = "UPDATE cv_job SET state = 'running', epoch = epoch + 1, attempt = attempt + 1, "
            + "lease_owner = :owner, lease_expires_at = {now+:lease_ms}, started_at = {now} WHERE ";
    // the read of due ids is ordered by every column of the fetch index (state and queue are
    // fixed there), so that both databases read the due jobs in index order and stop after :limit rows
    private final Dialect dialect;
    private final boolean twoSteps;
    /** By number of job types: the one statement (PostgreSQL) or the read of due ids (H2). */
    private final Map<Integer, Sql> byKindCount = new ConcurrentHashMap<>();
    private final Map<Integer, Sql> takeByCount = new ConcurrentHashMap<>();

    LeaseStatement(Dialect dialect) {
        this.dialect = dialect;
        this.twoSteps = dialect.locksEveryRowItReads();
    }

    /**
     * Leases up to {@code limit} due jobs of {@code queue} whose type is one of {@code kinds}
     * (of any type when {@code kinds} is null).
     */
    List<LeasedJob> lease(Connection c, String queue, String[] kinds, int limit, String owner, long leaseMs,
            Instant now) throws SQLException {
        if (kinds != null && kinds.length == 0) {
            return List.of();
        }
        Params p = Params.of().now(now).text("queue", queue).integer("limit", limit).text("owner", owner)
                .bigint("lease_ms", leaseMs);
        int kindCount = kinds == null ? -1 : kinds.length;
        if (kinds != null) {
            p.texts("k", kinds);
        }
        Sql statement = byKindCount.computeIfAbsent(kindCount, this::statementFor);
        if (!twoSteps) {
            return take(c, statement, p, limit);
        }
        List<Long> ids = statement.query(c, p, rs -> rs.getLong(1));
        return ids.isEmpty() ? List.of() : leaseIds(c, ids, p);
    }

    /**
     * Leases these jobs, those of them still available and due: the path by which jobs that no
     * node took are taken on purpose (to fail them after the grace for unhandled types).
     */
    List<LeasedJob> leaseIds(Connection c, List<Long> ids, String owner, long leaseMs, Instant now)
            throws SQLException {
        if (ids.isEmpty()) {
            return List.of();
        }
        return leaseIds(c, ids, Params.of().now(now).text("owner", owner).bigint("lease_ms", leaseMs));
    }

    private List<LeasedJob> leaseIds(Connection c, List<Long> ids, Params p) throws SQLException {
        Sql take = takeByCount.computeIfAbsent(ids.size(), this::takeIds);
        for (int i = 0; i < ids.size(); i++) {
            p.bigint("id" + i, ids.get(i));
        }
        return take(c, take, p, ids.size());
    }

    /** The statement for {@code kindCount} bound types; -1 for jobs of any type. */
    private Sql statementFor(int kindCount) {
        String in = kindCount > 0 ? "AND kind IN (" + Params.names("k", kindCount) + ") " : "";
        String due = "SELECT id FROM cv_job WHERE state = 'available' AND queue = :queue AND run_at <= {now} "
                + in + "ORDER BY state, queue, run_at, id LIMIT :limit";
        return twoSteps ? sql(dialect, due) : sql(dialect, SET + dialect.takeSkippingLocked(due));
    }

    private static List<LeasedJob> take(Connection c, Sql take, Params p, int limit) throws SQLException {
        try (PreparedStatement ps = take.prepareReturning(c, p, LEASED_COLUMNS)) {
            ps.executeUpdate();
            try (ResultSet rs = ps.getGeneratedKeys()) {
                List<LeasedJob> out = new ArrayList<>(limit);
                int[] at = null;
                while (rs.next()) {
                    if (at == null) {
                        at = columnIndexes(rs);
                    }
                    out.add(leased(rs, at));
                }
                return out;
            }
        }
    }

    /** Where each of {@link #LEASED_COLUMNS} is in this result: looked up once per fetch, not per row and column. */
    private static int[] columnIndexes(ResultSet rs) throws SQLException {
        int[] at = new int[LEASED_COLUMNS.length];
        for (int i = 0; i < at.length; i++) {
            at[i] = rs.findColumn(LEASED_COLUMNS[i]);
        }
        return at;
    }

    /** {@link JobStore#leased} by column index; {@code at} in the order of {@link #LEASED_COLUMNS}. */
    static LeasedJob leased(ResultSet rs, int[] at) throws SQLException {
        return new LeasedJob(rs.getLong(at[0]), rs.getString(at[1]), rs.getString(at[2]), rs.getString(at[3]),
                rs.getLong(at[4]), rs.getInt(at[5]), rs.getInt(at[6]), Sql.nullableLong(rs, at[7]),
                Sql.nullableLong(rs, at[8]), Sql.nullableLong(rs, at[9]), Sql.nullableInt(rs, at[10]),
                Sql.nullableLong(rs, at[11]), Sql.instant(rs, at[12]), Sql.instant(rs, at[13]));
    }

    private Sql takeIds(int count) {
        String in = Params.names("id", count);
        // re-checks under each row's lock both that it is still available and still due: a job
        // released with a backoff between the read and this update must not run early
        return sql(dialect, SET + "state = 'available' AND run_at <= {now} AND id IN (" + in + ")");
    }
}
