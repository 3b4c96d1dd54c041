package dev.converge.queue.internal;

import static dev.converge.store.internal.Templates.sql;

import dev.converge.queue.internal.Decision.Finish;
import dev.converge.queue.internal.Decision.Retry;
import dev.converge.lease.JobLease;
import dev.converge.queue.JobAttempt;
import dev.converge.queue.JobRow;
import dev.converge.queue.JobState;
import dev.converge.store.internal.Dialect;
import dev.converge.store.internal.Dialect.BulkInsert;
import dev.converge.store.Params;
import dev.converge.store.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The SQL of the {@code cv_job} table. Every method takes the connection of the caller's unit of
 * work and the engine clock's "now" (null: the database's clock). Changes to a running job are
 * conditional on its lease epoch: the returned counts say which writes still held the lease.
 */
public final class JobStore {
    /** The LISTEN/NOTIFY channel that wakes idle workers; the payload is the queue name. */
    public static final String CHANNEL = "converge_jobs";

    private static final String COLUMNS = "id, queue, kind, payload, state, run_at, attempt, max_attempts, epoch, "
            + "lease_owner, lease_expires_at, unique_key, batch_id, chain_id, chain_pos, flow_id, last_error, "
            + "created_at, started_at, finished_at";

    private final Dialect dialect;
    private final Sql insert;
    /**
     * {@link #insert} for the commonest job, one that stands alone (no batch, chain or flow) on the
     * database clock, with its id read back by RETURNING: nine parameters bound by position instead
     * of seventeen by name. Null where the database has no RETURNING. Enqueueing one job at a time
     * is bound by the client's CPU per statement, and naming, binding and sending the parameters
     * that are always null here was a visible share of it.
     */
    private final String insertAlone;
    /** The insert that also notifies, in the same statement; null where the database has no LISTEN/NOTIFY. */
    private final Sql insertNotifying;
    private final LeaseStatement lease;
    private final FencedWrites fenced;
    private final Sql leaseValid;
    private final Sql expired;
    /** PostgreSQL: running jobs of nodes whose presence ended; null elsewhere. */
    private final Sql orphaned;
    private final Sql anyExpired;
    private final Sql anyOrphaned;
    private final Sql anyEither;
    private final dev.converge.store.internal.SchemaProbe presenceColumns;
    private final Sql get;
    private final Sql byUniqueKey;
    private final Sql cancelAvailableInBatch;
    private final Sql cancelAvailableInFlow;
    private final Sql countByState;
    private final Sql dbNow;
    private final Sql retryFailed;
    private final Sql insertAttempt;
    private final Sql attemptsOf;
    private final Sql attemptsNotFailed;
    private final Sql cancelWaiting;

    public JobStore(Dialect dialect) {
        this.attemptsTable = dev.converge.store.internal.SchemaProbe.table(dialect, "cv_job_attempt");
        this.dialect = dialect;
        String insertSql = "INSERT INTO cv_job (queue, kind, payload, state, run_at, max_attempts, timeout_ms, unique_key, "
                + "batch_id, chain_id, chain_pos, flow_id, created_at, trace_parent) VALUES (:queue, :kind, :payload, 'available', "
                + "COALESCE(CAST(:run_at AS TIMESTAMP WITH TIME ZONE), {now+:delay_ms}), :max_attempts, :timeout_ms, :unique_key, :batch_id, :chain_id, :chain_pos, "
                + ":flow_id, {now}, :trace_parent)";
        this.insert = sql(dialect, insertSql + dialect.onConflictDoNothing());
        this.insertAlone = dialect.writesThroughWith()
                ? dialect.expand("INSERT INTO cv_job (queue, kind, payload, state, run_at, max_attempts, timeout_ms, unique_key, created_at, "
                        + "trace_parent) VALUES (?, ?, ?, 'available', COALESCE(CAST(? AS TIMESTAMP WITH TIME ZONE), "
                        + "statement_timestamp() + CAST(? AS DOUBLE PRECISION) * INTERVAL '1 millisecond'), ?, ?, ?, "
                        + "statement_timestamp(), ?)" + dialect.onConflictDoNothing() + " RETURNING id")
                : null;
        this.insertNotifying = dialect.supportsListen()
                ? sql(dialect, "WITH j AS (" + insertSql + dialect.onConflictDoNothing() + " RETURNING id, queue) "
                        + "SELECT id, pg_notify(:channel, queue) FROM j")
                : null;
        this.lease = new LeaseStatement(dialect);
        this.fenced = new FencedWrites(dialect);
        this.leaseValid = sql(dialect, "SELECT 1 FROM cv_job WHERE id = :id AND epoch = :epoch AND state = 'running' "
                + "AND lease_expires_at > {now}");
        String expiredRows = "FROM cv_job WHERE state = 'running' AND lease_expires_at < {now}";
        this.expired = sql(dialect, "SELECT " + String.join(", ", LeaseStatement.LEASED_COLUMNS) + " " + expiredRows
                + " ORDER BY lease_expires_at LIMIT :limit FOR UPDATE SKIP LOCKED");
        // a node is gone when the session advisory lock it recorded is no longer held, and it was
        // recorded since the server last started (a restart drops every lock: those records prove
        // nothing). A crash restart (a server process died, every session with it) keeps the
        // postmaster's start time but starts a new checkpointer; a role that may see it (superuser,
        // pg_read_all_stats) recognises that too, another sees no row and only the postmaster's time.
        String orphanedRows = "FROM cv_job WHERE state = 'running' AND lease_expires_at >= {now} AND lease_owner IN ("
                + "SELECT n.node_id FROM cv_node n WHERE n.node_id <> :node AND n.present_since >= ("
                + "SELECT GREATEST(pg_postmaster_start_time(), MAX(a.backend_start)) FROM pg_stat_activity a "
                + "WHERE a.backend_type = 'checkpointer') "
                + "AND NOT EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND l.granted "
                + "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
                + "AND ((CAST(l.classid AS BIGINT) << 32) | CAST(l.objid AS BIGINT)) = n.presence_key))";
        this.orphaned = dialect.supportsListen() ? sql(dialect, "SELECT " + String.join(", ", LeaseStatement.LEASED_COLUMNS)
                + " " + orphanedRows + " ORDER BY lease_expires_at LIMIT :limit FOR UPDATE SKIP LOCKED") : null;
        // the same rows asked about in autocommit, locking nothing: most passes find none, and then open no transaction
        this.anyExpired = sql(dialect, "SELECT CASE WHEN EXISTS (SELECT 1 " + expiredRows + ") THEN 1 ELSE 0 END AS due");
        this.anyOrphaned = orphaned == null ? null
                : sql(dialect, "SELECT CASE WHEN EXISTS (SELECT 1 " + orphanedRows + ") THEN 1 ELSE 0 END AS due");
        this.anyEither = orphaned == null ? null : sql(dialect, "SELECT CASE WHEN EXISTS (SELECT 1 " + expiredRows
                + ") OR EXISTS (SELECT 1 " + orphanedRows + ") THEN 1 ELSE 0 END AS due");
        this.presenceColumns = dev.converge.store.internal.SchemaProbe.column(dialect, "cv_node", "presence_key");
        this.get = sql(dialect, "SELECT " + COLUMNS + " FROM cv_job WHERE id = :id");
        this.insertAttempt = sql(dialect, "INSERT INTO cv_job_attempt (job_id, attempt, node_id, started_at, "
                + "finished_at, outcome, error) SELECT id, :attempt, COALESCE(lease_owner, :node), started_at, {now}, :outcome, :error "
                + "FROM cv_job WHERE id = :id");
        this.attemptsNotFailed = sql(dialect, "SELECT COUNT(*) FROM cv_job_attempt WHERE job_id = :id AND outcome IN ('expired', 'released')");
        this.attemptsOf = sql(dialect, "SELECT attempt, node_id, started_at, finished_at, outcome, error "
                + "FROM cv_job_attempt WHERE job_id = :id ORDER BY id");
        this.byUniqueKey = sql(dialect, "SELECT " + COLUMNS + " FROM cv_job WHERE unique_key = :key");
        this.cancelAvailableInBatch = sql(dialect, "UPDATE cv_job SET state = 'cancelled', finished_at = {now}, "
                + "last_error = :reason WHERE batch_id = :batch_id AND state = 'available'");
        this.cancelAvailableInFlow = sql(dialect, "UPDATE cv_job SET state = 'cancelled', finished_at = {now}, "
                + "last_error = :reason WHERE flow_id = :flow_id AND state = 'available' AND kind <> :keep_kind_prefix");
        this.countByState = sql(dialect, "SELECT state, COUNT(*) AS n FROM cv_job WHERE (:queue IS NULL OR queue = :queue) "
                + "GROUP BY state");
        this.dbNow = sql(dialect, "SELECT {now} AS now_ts");
        // a person's retry of a job that failed for good; one conditional update, so two at once run it once
        this.retryFailed = sql(dialect, "UPDATE cv_job SET state = 'available', attempt = 0, run_at = {now}, "
                + "lease_owner = NULL, lease_expires_at = NULL, started_at = NULL, finished_at = NULL, last_error = :note "
                + "WHERE id = :id AND state = 'failed' AND batch_id IS NULL AND chain_id IS NULL AND flow_id IS NULL");
        // a person's cancel of a job that has not started: fenced by state and epoch, so a job leased
        // since the person looked (running now, or back to available under a new epoch) is not touched
        this.cancelWaiting = sql(dialect, "UPDATE cv_job SET state = 'cancelled', finished_at = {now}, last_error = :note "
                + "WHERE id = :id AND state = 'available' AND epoch = :epoch");
        this.traceParentOf = sql(dialect, "SELECT trace_parent FROM cv_job WHERE id = :id");
    }

    private final Sql traceParentOf;
    private volatile java.util.function.Supplier<String> traceParent = () -> null;

    /** Where each inserted job's {@code trace_parent} comes from (tracing: the enqueuing thread's context). */
    public void traceParentFrom(java.util.function.Supplier<String> source) {
        this.traceParent = java.util.Objects.requireNonNull(source);
    }

    /** The W3C traceparent a job was enqueued under, if any. */
    public Optional<String> traceParentOf(Connection c, long id) throws SQLException {
        return Optional.ofNullable(traceParentOf.queryOne(c, Params.of().bigint("id", id), rs -> rs.getString(1)));
    }

    /** The outcome of inserting one job: its id, and whether a job with the same unique key already existed. */
    public record Inserted(long id, boolean duplicate) {
    }

    /**
     * Inserts one job. A unique key already taken is not an error: the existing job's id comes
     * back with {@code duplicate = true}, and the caller's transaction is left usable.
     */
    public Inserted insert(Connection c, NewJob job, Instant now) throws SQLException {
        if (insertAlone != null && now == null && job.batchId() == null && job.chainId() == null
                && job.chainPos() == null && job.flowId() == null) {
            return insertAlone(c, job);
        }
        Params p = insertParams(job, now);
        try (PreparedStatement ps = insert.bind(c.prepareStatement(insert.text(), new String[] {"id"}), p)) {
            int n = ps.executeUpdate();
            if (n == 1) {
                try (ResultSet keys = ps.getGeneratedKeys()) {
                    keys.next();
                    return new Inserted(keys.getLong(1), false);
                }
            }
        } catch (SQLException e) {
            if (!"23505".equals(e.getSQLState()) || job.uniqueKey() == null) {
                throw e;
            }
        }
        return duplicateOf(c, job);
    }

    /**
     * As {@link #insert}, and a new job is also announced on {@code channel} (its queue as the
     * payload) by the same statement, so the notification goes out with the transaction's commit at
     * no extra round trip. A duplicate announces nothing. Where the database has no LISTEN/NOTIFY
     * this is {@link #insert}.
     */
    public Inserted insertNotifying(Connection c, NewJob job, Instant now, String channel) throws SQLException {
        if (insertNotifying == null) {
            return insert(c, job, now);
        }
        Params p = insertParams(job, now).text("channel", channel);
        try (PreparedStatement ps = insertNotifying.prepare(c, p); ResultSet rs = ps.executeQuery()) {
            if (rs.next()) {
                return new Inserted(rs.getLong(1), false);
            }
        }
        return duplicateOf(c, job);
    }

    private Inserted insertAlone(Connection c, NewJob job) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(insertAlone)) {
            ps.setString(1, job.queue());
            ps.setString(2, job.kind());
            ps.setString(3, job.payload());
            if (job.runAt() == null) {
                ps.setNull(4, Types.TIMESTAMP_WITH_TIMEZONE);
            } else {
                ps.setObject(4, job.runAt().atOffset(ZoneOffset.UTC), Types.TIMESTAMP_WITH_TIMEZONE);
            }
            ps.setLong(5, job.delayMs());
            ps.setInt(6, job.maxAttempts());
            if (job.timeoutMs() == null) {
                ps.setNull(7, Types.BIGINT);
            } else {
                ps.setLong(7, job.timeoutMs());
            }
            setText(ps, 8, job.uniqueKey());
            setText(ps, 9, traceParent.get());
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    return new Inserted(rs.getLong(1), false);
                }
            }
        }
        return duplicateOf(c, job);
    }

    private static void setText(PreparedStatement ps, int index, String value) throws SQLException {
        if (value == null) {
            ps.setNull(index, Types.VARCHAR);
        } else {
            ps.setString(index, value);
        }
    }

    private Inserted duplicateOf(Connection c, NewJob job) throws SQLException {
        JobRow existing = byUniqueKey(c, job.uniqueKey()).orElseThrow(
                () -> new SQLException("unique key conflict but no job holds key " + job.uniqueKey(), "23505"));
        return new Inserted(existing.id(), true);
    }

    private Params insertParams(NewJob job, Instant now) {
        return Params.of().now(now)
                .text("queue", job.queue()).text("kind", job.kind()).text("payload", job.payload())
                .time("run_at", job.runAt()).bigint("delay_ms", job.delayMs()).integer("max_attempts", job.maxAttempts())
                .bigint("timeout_ms", job.timeoutMs()).text("unique_key", job.uniqueKey())
                .bigint("batch_id", job.batchId()).bigint("chain_id", job.chainId())
                .integer("chain_pos", job.chainPos()).bigint("flow_id", job.flowId())
                .text("trace_parent", traceParent.get());
    }

    /**
     * Inserts many jobs in as few statements as the database allows. Returns ids in input
     * order; a job skipped because its unique key was taken gets -1.
     */
    public long[] insertMany(Connection c, List<NewJob> jobs, Instant now) throws SQLException {
        if (jobs.isEmpty()) {
            return new long[0];
        }
        Instant at = now != null ? now : databaseNow(c);
        boolean anyUnique = false;
        List<Object[]> rows = new ArrayList<>(jobs.size());
        String trace = traceParent.get();
        for (NewJob j : jobs) {
            anyUnique |= j.uniqueKey() != null;
            rows.add(new Object[] {j.queue(), j.kind(), j.payload(), "available", j.runAt() != null ? j.runAt() : at.plusMillis(j.delayMs()),
                j.maxAttempts(), j.timeoutMs(), j.uniqueKey(), j.batchId(), j.chainId(), j.chainPos(), j.flowId(), at, trace});
        }
        List<BulkInsert.Column> cols = List.of(
                col("queue", Types.VARCHAR), col("kind", Types.VARCHAR), col("payload", Types.VARCHAR),
                col("state", Types.VARCHAR), col("run_at", Types.TIMESTAMP_WITH_TIMEZONE),
                col("max_attempts", Types.INTEGER), col("timeout_ms", Types.BIGINT), col("unique_key", Types.VARCHAR),
                col("batch_id", Types.BIGINT), col("chain_id", Types.BIGINT), col("chain_pos", Types.INTEGER),
                col("flow_id", Types.BIGINT), col("created_at", Types.TIMESTAMP_WITH_TIMEZONE),
                col("trace_parent", Types.VARCHAR));
        return dialect.insertMany(c, new BulkInsert("cv_job", cols, rows, anyUnique ? "unique_key" : null));
    }

    private static BulkInsert.Column col(String name, int type) {
        return new BulkInsert.Column(name, type);
    }

    /** "Now" as the database sees it (or the bound test instant). */
    public Instant databaseNow(Connection c) throws SQLException {
        return dbNow.queryOne(c, Params.of().now(null), rs -> Sql.instant(rs, "now_ts"));
    }

    /**
     * Leases up to {@code limit} due jobs of a queue to {@code owner}: each one's epoch and attempt
     * go up by one and its lease runs {@code leaseMs} from now by the database clock. Rows locked
     * by another worker's lease call are skipped, not waited for.
     */
    public List<LeasedJob> lease(Connection c, String queue, int limit, String owner, long leaseMs, Instant now)
            throws SQLException {
        return lease.lease(c, queue, null, limit, owner, leaseMs, now);
    }

    /** As {@link #lease(Connection, String, int, String, long, Instant)}, only jobs of these types. */
    public List<LeasedJob> lease(Connection c, String queue, String[] kinds, int limit, String owner, long leaseMs,
            Instant now) throws SQLException {
        return lease.lease(c, queue, kinds, limit, owner, leaseMs, now);
    }

    /** Leases these jobs, those still available and due (the grace path for jobs no node handles). */
    public List<LeasedJob> leaseIds(Connection c, List<Long> ids, String owner, long leaseMs, Instant now)
            throws SQLException {
        return lease.leaseIds(c, ids, owner, leaseMs, now);
    }

    /** Applies terminal outcomes; {@code result[i]} is true where the lease still held and the row changed. */
    public boolean[] finish(Connection c, List<Finish> finishes, Instant now) throws SQLException {
        return finishes.isEmpty() ? new boolean[0] : fenced.finish(c, finishes, now);
    }

    /** Puts running jobs back to available; {@code result[i]} is true where the lease still held. */
    public boolean[] retry(Connection c, List<Retry> retries, Instant now) throws SQLException {
        return retries.isEmpty() ? new boolean[0] : fenced.retry(c, retries, now);
    }

    /** Extends leases by {@code leaseMs} from now; false where the lease was already lost. */
    public boolean[] extendLeases(Connection c, List<JobLease> leases, long leaseMs, Instant now) throws SQLException {
        return leases.isEmpty() ? new boolean[0] : fenced.extend(c, leases, leaseMs, now);
    }

    /** Whether this delivery still holds the job: same epoch, still running, lease not expired. */
    public boolean leaseValid(Connection c, JobLease l, Instant now) throws SQLException {
        return leaseValid.queryOne(c, Params.of().now(now).bigint("id", l.jobId()).bigint("epoch", l.epoch()),
                rs -> Boolean.TRUE) != null;
    }

    /** Running jobs whose lease has expired, locked for the caller's transaction (others skip them). */
    public List<LeasedJob> expiredLeases(Connection c, int limit, Instant now) throws SQLException {
        return expired.query(c, Params.of().now(now).integer("limit", limit), JobStore::leased);
    }

    /**
     * Whether a pass would find anything to take back: a lease expired (when {@code expiredToo}) or one of
     * {@link #orphanedLeases}. Read without locking, outside a transaction: a pass that finds nothing costs
     * one statement instead of a transaction of four. A row it sees may be taken by another node before this
     * one locks it; the pass that follows then finds nothing, as it would have.
     */
    public boolean anyToTakeBack(Connection c, String node, boolean expiredToo, Instant now) throws SQLException {
        boolean gone = orphaned != null && presenceColumns.present(c);
        Sql probe = expiredToo ? (gone ? anyEither : anyExpired) : (gone ? anyOrphaned : null);
        if (probe == null) {
            return false;
        }
        Integer due = probe.queryOne(c, Params.of().now(now).text("node", node), rs -> rs.getInt("due"));
        return due != null && due == 1;
    }

    /** Whether this database can tell a node that is gone from one that is slow ({@link #orphanedLeases}). */
    public boolean seesGoneNodes() {
        return orphaned != null;
    }

    /**
     * PostgreSQL: running jobs whose lease still runs but whose node is gone (its presence lock was
     * released by the end of its database session: the process died), locked for the caller's
     * transaction; none elsewhere, nor beside the previous release's schema, nor this node's own.
     */
    public List<LeasedJob> orphanedLeases(Connection c, String node, int limit, Instant now) throws SQLException {
        if (orphaned == null || !presenceColumns.present(c)) {
            return List.of();
        }
        return orphaned.query(c, Params.of().now(now).text("node", node).integer("limit", limit), JobStore::leased);
    }

    /**
     * Records the attempt of {@code job} that just failed, in the transaction that recorded its
     * outcome (its row still holds the attempt's start and the node that ran it, which is not
     * {@code node} when that node rescued another's expired lease). Nothing is written while the schema is
     * the previous release's, without {@code cv_job_attempt}.
     */
    public void recordAttempt(Connection c, LeasedJob job, String node, String outcome, String error, Instant now)
            throws SQLException {
        if (attemptsTable(c)) {
            insertAttempt.update(c, Params.of().now(now).bigint("id", job.id()).integer("attempt", job.attempt())
                    .text("node", node).text("outcome", outcome).text("error", error));
        }
    }

    /**
     * How many of a job's attempts ended otherwise than by a failure: their lease expired (their node
     * died or stalled) or their handler released the job; as recorded, 0 on the previous release's schema.
     */
    public int attemptsNotFailed(Connection c, long jobId) throws SQLException {
        if (!attemptsTable(c)) {
            return 0;
        }
        Integer n = attemptsNotFailed.queryOne(c, Params.of().bigint("id", jobId), rs -> rs.getInt(1));
        return n == null ? 0 : n;
    }

    /** The recorded attempts of a job, oldest first; empty on the previous release's schema. */
    public List<JobAttempt> attempts(Connection c, long jobId) throws SQLException {
        if (!attemptsTable(c)) {
            return List.of();
        }
        return attemptsOf.query(c, Params.of().bigint("id", jobId), rs -> new JobAttempt(rs.getInt("attempt"),
                rs.getString("node_id"), Sql.instant(rs, "started_at"), Sql.instant(rs, "finished_at"),
                rs.getString("outcome"), rs.getString("error")));
    }

    /** {@code cv_job_attempt}, absent on the previous release's schema. */
    private final dev.converge.store.internal.SchemaProbe attemptsTable;

    private boolean attemptsTable(Connection c) throws SQLException {
        return attemptsTable.present(c);
    }

    public Optional<JobRow> get(Connection c, long id) throws SQLException {
        return Optional.ofNullable(get.queryOne(c, Params.of().bigint("id", id), JobStore::row));
    }

    /**
     * Makes a job that failed for good available again, with its attempts counted afresh; false if
     * it is not failed (another retry won) or belongs to a batch, chain or flow.
     */
    public boolean retryFailed(Connection c, long id, String note, Instant now) throws SQLException {
        return retryFailed.update(c, Params.of().now(now).bigint("id", id).text("note", note)) == 1;
    }

    /**
     * Cancels a job that is waiting (available, not leased) as of the given epoch; false if it has
     * been leased since, or is in any other state. Never touches a running job.
     */
    public boolean cancelWaiting(Connection c, long id, long epoch, String note, Instant now) throws SQLException {
        return cancelWaiting.update(c, Params.of().now(now).bigint("id", id).bigint("epoch", epoch).text("note", note)) == 1;
    }

    public Optional<JobRow> byUniqueKey(Connection c, String key) throws SQLException {
        return Optional.ofNullable(byUniqueKey.queryOne(c, Params.of().text("key", key), JobStore::row));
    }

    /** Cancels the batch's jobs that have not started; returns how many. */
    public int cancelAvailableInBatch(Connection c, long batchId, String reason, Instant now) throws SQLException {
        return cancelAvailableInBatch.update(c, Params.of().now(now).bigint("batch_id", batchId).text("reason", reason));
    }

    /** Cancels a flow's jobs that have not started, except those of the given kind (its compensation). */
    public int cancelAvailableInFlow(Connection c, long flowId, String keepKind, String reason, Instant now)
            throws SQLException {
        return cancelAvailableInFlow.update(c, Params.of().now(now).bigint("flow_id", flowId)
                .text("keep_kind_prefix", keepKind).text("reason", reason));
    }

    /** Job counts by state, for one queue or (null) all. */
    public Map<JobState, Long> countByState(Connection c, String queue) throws SQLException {
        Map<JobState, Long> counts = new EnumMap<>(JobState.class);
        for (JobState s : JobState.values()) {
            counts.put(s, 0L);
        }
        countByState.query(c, Params.of().text("queue", queue), rs -> {
            counts.put(JobState.fromSql(rs.getString("state")), rs.getLong("n"));
            return null;
        });
        return counts;
    }

    static LeasedJob leased(ResultSet rs) throws SQLException {
        return new LeasedJob(rs.getLong("id"), rs.getString("queue"), rs.getString("kind"), rs.getString("payload"),
                rs.getLong("epoch"), rs.getInt("attempt"), rs.getInt("max_attempts"), Sql.nullableLong(rs, "timeout_ms"),
                Sql.nullableLong(rs, "batch_id"), Sql.nullableLong(rs, "chain_id"), Sql.nullableInt(rs, "chain_pos"),
                Sql.nullableLong(rs, "flow_id"), Sql.instant(rs, "created_at"), Sql.instant(rs, "run_at"));
    }

    static JobRow row(ResultSet rs) throws SQLException {
        return new JobRow(rs.getLong("id"), rs.getString("queue"), rs.getString("kind"), rs.getString("payload"),
                JobState.fromSql(rs.getString("state")), Sql.instant(rs, "run_at"), rs.getInt("attempt"),
                rs.getInt("max_attempts"), rs.getLong("epoch"), rs.getString("lease_owner"),
                Sql.instant(rs, "lease_expires_at"), rs.getString("unique_key"), Sql.nullableLong(rs, "batch_id"),
                Sql.nullableLong(rs, "chain_id"), Sql.nullableInt(rs, "chain_pos"), Sql.nullableLong(rs, "flow_id"),
                rs.getString("last_error"), Sql.instant(rs, "created_at"), Sql.instant(rs, "started_at"),
                Sql.instant(rs, "finished_at"));
    }
}
