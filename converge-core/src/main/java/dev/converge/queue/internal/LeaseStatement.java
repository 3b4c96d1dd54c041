package dev.converge.queue.internal;

import dev.converge.store.internal.Dialect;
import dev.converge.store.internal.Params;
import dev.converge.store.internal.Sql;
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
 * The fetch path: leases up to n due jobs of a queue in one transaction, raising each one's
 * epoch and attempt. Where the database skips locked rows cheaply (PostgreSQL) it is one
 * {@code UPDATE ... WHERE id = ANY(ARRAY(SELECT ... FOR UPDATE SKIP LOCKED))}.
 *
 * <p>H2 locks every row a {@code SELECT ... FOR UPDATE} reads and re-runs IN-subqueries row by
 * row, so a single statement cost as much as the queue was long (quadratic over a drain, and a
 * concurrent fetch found the whole queue locked). There the due ids are read first without
 * locks, in index order, stopping after n; then an UPDATE takes those still available and due, re-checked
 * under each row's lock: a row another fetch took meanwhile is simply not taken again.
 */
final class LeaseStatement {
    static final String[] LEASED_COLUMNS = {"id", "queue", "kind", "payload", "epoch", "attempt",
        "max_attempts", "timeout_ms", "batch_id", "chain_id", "chain_pos", "flow_id", "created_at", "run_at"};
    private static final String SET = "UPDATE cv_job SET state = 'running', epoch = epoch + 1, attempt = attempt + 1, "
            + "lease_owner = :owner, lease_expires_at = {now+:lease_ms}, started_at = {now} WHERE ";
    // ordered by every column of the fetch index (state and queue are fixed here), so that both
    // databases read the due jobs in index order and stop after :limit rows
    private static final String DUE = "SELECT id FROM cv_job WHERE state = 'available' AND queue = :queue "
            + "AND run_at <= {now} ORDER BY state, queue, run_at, id LIMIT :limit";

    private final Dialect dialect;
    private final Sql oneStatement;
    private final Sql dueIds;
    private final Map<Integer, Sql> takeByCount = new ConcurrentHashMap<>();

    LeaseStatement(Dialect dialect) {
        this.dialect = dialect;
        boolean twoSteps = dialect.locksEveryRowItReads();
        this.oneStatement = twoSteps ? null
                : Sql.of(dialect, SET + dialect.takeSkippingLocked(DUE));
        this.dueIds = twoSteps ? Sql.of(dialect, DUE) : null;
    }

    List<LeasedJob> lease(Connection c, String queue, int limit, String owner, long leaseMs, Instant now)
            throws SQLException {
        Params p = Params.of().now(now).text("queue", queue).integer("limit", limit).text("owner", owner)
                .bigint("lease_ms", leaseMs);
        Sql take = oneStatement;
        if (take == null) {
            List<Long> ids = dueIds.query(c, p, rs -> rs.getLong(1));
            if (ids.isEmpty()) {
                return List.of();
            }
            take = takeByCount.computeIfAbsent(ids.size(), this::takeIds);
            for (int i = 0; i < ids.size(); i++) {
                p.bigint("id" + i, ids.get(i));
            }
        }
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
        StringBuilder in = new StringBuilder();
        for (int i = 0; i < count; i++) {
            in.append(i == 0 ? ":id" : ", :id").append(i);
        }
        // re-checks under each row's lock both that it is still available and still due: a job
        // released with a backoff between the read and this update must not run early
        return Sql.of(dialect, SET + "state = 'available' AND run_at <= {now} AND id IN (" + in + ")");
    }
}
