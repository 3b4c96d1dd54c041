package dev.converge.token.internal;

import static dev.converge.store.internal.Templates.sql;

import dev.converge.lease.JobLease;
import dev.converge.store.internal.Dialect;
import dev.converge.store.Params;
import dev.converge.store.Sql;
import dev.converge.token.Token;
import dev.converge.token.TokenState;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The SQL of {@code cv_token}: every change of a checked-out token is fenced by its owner's lease. */
public final class TokenStore {
    private static final String[] COLUMN_NAMES = {"id", "pool", "token", "subject", "state", "owner_job_id", "owner_epoch",
        "checked_out_at", "used_at", "spent_at", "created_at"};
    private static final String COLUMNS = String.join(", ", COLUMN_NAMES);
    private static final String FENCE = " AND EXISTS (SELECT 1 FROM cv_job j WHERE j.id = :job AND j.epoch = :epoch "
            + "AND j.state = 'running')";
    private static final String MINE = " AND owner_job_id = :job AND owner_epoch = :epoch";

    private final Sql insert;
    private final Sql bySubject;
    private final Sql byId;
    private final Sql firstAvailable;
    private final Sql ofJob;
    private final Sql checkout;
    private final Sql checkoutForUse;
    private final Sql takeOver;
    private final Sql markUsing;
    private final Sql spend;
    private final Sql giveBack;
    private final Sql returnAbandoned;
    private final Sql counts;
    private final Sql all;
    private final Sql ownerAlive;
    private final Sql staleUsed;
    private final Sql settle;

    public TokenStore(Dialect d) {
        insert = sql(d, "INSERT INTO cv_token (pool, token, subject, state, created_at) "
                + "VALUES (:pool, :token, :subject, 'available', {now})" + d.onConflictDoNothing());
        // a subject may hold several tokens (one per permitted use): the first one not yet spent
        bySubject = sql(d, "SELECT " + COLUMNS + " FROM cv_token WHERE pool = :pool AND subject = :subject "
                + "ORDER BY CASE WHEN state = 'spent' THEN 1 ELSE 0 END, id LIMIT 1");
        byId = sql(d, "SELECT " + COLUMNS + " FROM cv_token WHERE id = :id");
        firstAvailable = sql(d, "SELECT " + COLUMNS + " FROM cv_token WHERE pool = :pool AND state = 'available' "
                + "ORDER BY id LIMIT 1");
        // what an earlier delivery of this job checked out (or spent) from a pool without subjects
        ofJob = sql(d, "SELECT " + COLUMNS + " FROM cv_token WHERE pool = :pool AND owner_job_id = :job "
                + "AND state IN ('checked_out', 'spent') ORDER BY CASE WHEN state = 'spent' THEN 1 ELSE 0 END, id LIMIT 1");
        checkout = sql(d, "UPDATE cv_token SET state = 'checked_out', owner = :owner, owner_job_id = :job, "
                + "owner_epoch = :epoch, checked_out_at = {now}, used_at = NULL WHERE id = :id AND state = 'available'"
                + FENCE);
        // the common use in one statement: the subject's first unspent token checked out to this delivery with its
        // use started, only if that token is available and the step is not called off (its batch cancelled, its
        // flow no longer running: the rule of Delivery.cancelled(), read in the same statement). Anything else
        // (the token held, spent, or the step called off) writes nothing, and the caller takes the long way
        checkoutForUse = sql(d, "UPDATE cv_token SET state = 'checked_out', owner = :owner, owner_job_id = :job, "
                + "owner_epoch = :epoch, checked_out_at = {now}, used_at = {now} WHERE id = (SELECT id FROM cv_token "
                + "WHERE pool = :pool AND subject = :subject ORDER BY CASE WHEN state = 'spent' THEN 1 ELSE 0 END, id "
                + "LIMIT 1) AND state = 'available'" + FENCE
                + " AND NOT EXISTS (SELECT 1 FROM cv_batch b WHERE b.id = :batch_id AND b.state = 'cancelled')"
                + " AND NOT EXISTS (SELECT 1 FROM cv_flow f WHERE f.id = :flow_id AND f.state <> 'running')");
        // used_at survives a takeover: a use that may have happened stays recorded until the new owner
        // spends the token or gives it back, so the reaper never returns it to the pool meanwhile
        // a used token taken over again keeps the time it was first taken from the delivery that used it:
        // the window in which that abandoned use may still land at the leaf counts from then (TokenService)
        takeOver = sql(d, "UPDATE cv_token SET owner = :owner, owner_job_id = :job, owner_epoch = :epoch, "
                + "checked_out_at = CASE WHEN used_at IS NOT NULL AND used_at < checked_out_at THEN checked_out_at "
                + "ELSE {now} END WHERE id = :id AND state = 'checked_out' "
                + "AND COALESCE(owner_job_id, -1) = :old_job AND COALESCE(owner_epoch, -1) = :old_epoch" + FENCE);
        markUsing = sql(d, "UPDATE cv_token SET used_at = {now} WHERE id = :id AND state = 'checked_out'" + MINE + FENCE);
        spend = sql(d, "UPDATE cv_token SET state = 'spent', spent_at = {now} WHERE id = :id AND state = 'checked_out'"
                + MINE + FENCE);
        giveBack = sql(d, "UPDATE cv_token SET state = 'available', owner = NULL, owner_job_id = NULL, "
                + "owner_epoch = NULL, checked_out_at = NULL, used_at = NULL WHERE id = :id AND state = 'checked_out'"
                + MINE + FENCE);
        returnAbandoned = sql(d, "UPDATE cv_token SET state = 'available', owner = NULL, owner_job_id = NULL, "
                + "owner_epoch = NULL, checked_out_at = NULL WHERE state = 'checked_out' AND used_at IS NULL "
                + "AND checked_out_at < {now+:minus_ms} AND NOT EXISTS (SELECT 1 FROM cv_job j "
                + "WHERE j.id = cv_token.owner_job_id AND j.state IN ('running', 'available'))");
        counts = sql(d, "SELECT state, CASE WHEN used_at IS NULL THEN 0 ELSE 1 END AS used, COUNT(*) AS n "
                + "FROM cv_token WHERE pool = :pool GROUP BY state, CASE WHEN used_at IS NULL THEN 0 ELSE 1 END");
        all = sql(d, "SELECT " + COLUMNS + " FROM cv_token WHERE pool = :pool ORDER BY id");
        ownerAlive = sql(d, "SELECT 1 FROM cv_job WHERE id = :job AND epoch = :epoch AND state = 'running' "
                + "AND lease_expires_at > {now}");
        // a person settles a token whose use is unknown: only while no delivery of its owner runs
        settle = sql(d, "UPDATE cv_token SET state = :to, spent_at = CASE WHEN :spent THEN {now} ELSE spent_at END, "
                + "owner = CASE WHEN :spent THEN owner ELSE NULL END, "
                + "owner_job_id = CASE WHEN :spent THEN owner_job_id ELSE NULL END, "
                + "owner_epoch = CASE WHEN :spent THEN owner_epoch ELSE NULL END, "
                + "checked_out_at = CASE WHEN :spent THEN checked_out_at ELSE NULL END, "
                + "used_at = CASE WHEN :spent THEN used_at ELSE NULL END "
                + "WHERE id = :id AND state = 'checked_out' AND used_at IS NOT NULL "
                + "AND COALESCE(owner_job_id, -1) = :old_job AND COALESCE(owner_epoch, -1) = :old_epoch "
                + "AND NOT EXISTS (SELECT 1 FROM cv_job j WHERE j.id = cv_token.owner_job_id AND j.state = 'running')");
        staleUsed = sql(d, "SELECT " + COLUMNS + " FROM cv_token WHERE state = 'checked_out' AND used_at IS NOT NULL "
                + "AND used_at < {now+:minus_ms} AND NOT EXISTS (SELECT 1 FROM cv_job j WHERE j.id = cv_token.owner_job_id "
                + "AND j.state IN ('running', 'available')) AND id > :after ORDER BY id LIMIT :limit");
    }

    public boolean add(Connection c, String pool, String token, String subject, Instant now) throws SQLException {
        try {
            return insert.update(c, Params.of().now(now).text("pool", pool).text("token", token).text("subject", subject)) == 1;
        } catch (SQLException e) {
            if ("23505".equals(e.getSQLState())) {
                return false;
            }
            throw e;
        }
    }

    public Optional<Token> bySubject(Connection c, String pool, String subject) throws SQLException {
        return Optional.ofNullable(bySubject.queryOne(c, Params.of().text("pool", pool).text("subject", subject),
                TokenStore::token));
    }

    public Optional<Token> byId(Connection c, long id) throws SQLException {
        return Optional.ofNullable(byId.queryOne(c, Params.of().bigint("id", id), TokenStore::token));
    }

    public Optional<Token> firstAvailable(Connection c, String pool) throws SQLException {
        return Optional.ofNullable(firstAvailable.queryOne(c, Params.of().text("pool", pool), TokenStore::token));
    }

    /** The token of the pool a delivery of this job checked out or spent, if any. */
    public Optional<Token> ofJob(Connection c, String pool, long jobId) throws SQLException {
        return Optional.ofNullable(ofJob.queryOne(c, Params.of().text("pool", pool).bigint("job", jobId),
                TokenStore::token));
    }

    public boolean checkout(Connection c, long id, String owner, JobLease by, Instant now) throws SQLException {
        return checkoutReturning(c, id, owner, by, now).isPresent();
    }

    /** Checks the token out to this delivery and returns it as written; empty if refused. */
    public Optional<Token> checkoutReturning(Connection c, long id, String owner, JobLease by, Instant now)
            throws SQLException {
        return returning(checkout, c, lease(by, now).bigint("id", id).text("owner", owner));
    }

    /**
     * Checks out the subject's token to this delivery and starts its use, in one statement; empty (nothing
     * written) unless the subject's first unspent token is available and the step, of batch {@code batchId} and
     * flow {@code flowId} (either may be null), is not called off.
     */
    public Optional<Token> checkoutForUse(Connection c, String pool, String subject, Long batchId, Long flowId,
            String owner, JobLease by, Instant now) throws SQLException {
        return returning(checkoutForUse, c, lease(by, now).text("pool", pool).text("subject", subject)
                .bigint("batch_id", batchId).bigint("flow_id", flowId).text("owner", owner));
    }

    public boolean takeOver(Connection c, Token t, String owner, JobLease by, Instant now) throws SQLException {
        return takeOverReturning(c, t, owner, by, now).isPresent();
    }

    /** As {@link #takeOver}, returning the token as written. */
    public Optional<Token> takeOverReturning(Connection c, Token t, String owner, JobLease by, Instant now)
            throws SQLException {
        return returning(takeOver, c, lease(by, now).bigint("id", t.id()).text("owner", owner)
                .bigint("old_job", t.ownerJobId() == null ? -1L : t.ownerJobId())
                .bigint("old_epoch", t.ownerEpoch() == null ? -1L : t.ownerEpoch()));
    }

    /** Runs a fenced write of one token and returns the token as that write left it; empty if it applied to no row. */
    private static Optional<Token> returning(Sql sql, Connection c, Params p) throws SQLException {
        try (java.sql.PreparedStatement ps = sql.prepareReturning(c, p, COLUMN_NAMES)) {
            if (ps.executeUpdate() != 1) {
                return Optional.empty();
            }
            try (java.sql.ResultSet rs = ps.getGeneratedKeys()) {
                return rs.next() ? Optional.of(token(rs)) : Optional.empty();
            }
        }
    }

    public boolean markUsing(Connection c, long id, JobLease by, Instant now) throws SQLException {
        return markUsing.update(c, lease(by, now).bigint("id", id)) == 1;
    }

    public boolean spend(Connection c, long id, JobLease by, Instant now) throws SQLException {
        return spendReturning(c, id, by, now).isPresent();
    }

    /** Spends the token this delivery used and returns it as written; empty if refused. */
    public Optional<Token> spendReturning(Connection c, long id, JobLease by, Instant now) throws SQLException {
        return returning(spend, c, lease(by, now).bigint("id", id));
    }

    public boolean giveBack(Connection c, long id, JobLease by, Instant now) throws SQLException {
        return giveBack.update(c, lease(by, now).bigint("id", id)) == 1;
    }

    /** Returns tokens checked out, never used, by jobs that ended; returns how many. */
    public int returnAbandoned(Connection c, long olderThanMs, Instant now) throws SQLException {
        return returnAbandoned.update(c, Params.of().now(now).bigint("minus_ms", -olderThanMs));
    }

    /**
     * Tokens whose use started under an owner that ended (killed, cancelled, out of attempts):
     * nobody will come back to them, so only asking the leaf can settle them. In id order after
     * {@code afterId}: the reaper pages past tokens it cannot settle (their pool has no lookup).
     */
    public List<Token> staleUsed(Connection c, long olderThanMs, long afterId, int limit, Instant now)
            throws SQLException {
        return staleUsed.query(c, Params.of().now(now).bigint("minus_ms", -olderThanMs).bigint("after", afterId)
                .integer("limit", limit), TokenStore::token);
    }

    /** Counts by state; checked-out tokens whose use started count under {@code usedUnspent}. */
    public Map<String, Long> counts(Connection c, String pool) throws SQLException {
        Map<String, Long> out = new java.util.LinkedHashMap<>();
        for (TokenState s : TokenState.values()) {
            out.put(s.sql(), 0L);
        }
        out.put("used_unspent", 0L);
        counts.query(c, Params.of().text("pool", pool), rs -> {
            String state = rs.getString("state");
            long n = rs.getLong("n");
            out.merge(state, n, Long::sum);
            if ("checked_out".equals(state) && rs.getInt("used") == 1) {
                out.merge("used_unspent", n, Long::sum);
            }
            return null;
        });
        return out;
    }

    public List<Token> all(Connection c, String pool) throws SQLException {
        return all.query(c, Params.of().text("pool", pool), TokenStore::token);
    }

    /** Whether the delivery holding a checked-out token is alive: running, same epoch, lease not expired. */
    public boolean ownerAlive(Connection c, Token t, Instant now) throws SQLException {
        if (t.ownerJobId() == null || t.ownerEpoch() == null) {
            return false;
        }
        return ownerAlive.queryOne(c, Params.of().now(now).bigint("job", t.ownerJobId()).bigint("epoch", t.ownerEpoch()),
                rs -> Boolean.TRUE) != null;
    }

    private static Params lease(JobLease by, Instant now) {
        return Params.of().now(now).bigint("job", by.jobId()).bigint("epoch", by.epoch());
    }

    private static Token token(java.sql.ResultSet rs) throws SQLException {
        return new Token(rs.getLong("id"), rs.getString("pool"), rs.getString("token"), rs.getString("subject"),
                TokenState.fromSql(rs.getString("state")), Sql.nullableLong(rs, "owner_job_id"),
                Sql.nullableLong(rs, "owner_epoch"), Sql.instant(rs, "checked_out_at"), Sql.instant(rs, "used_at"),
                Sql.instant(rs, "spent_at"), Sql.instant(rs, "created_at"));
    }

    /**
     * A person settles a token whose use started under an owner that is gone: spent (the use
     * happened) or available again (it did not). False if the token moved on or its owner runs.
     */
    public boolean settle(Connection c, Token t, boolean used, Instant now) throws SQLException {
        return settle.update(c, Params.of().bigint("id", t.id()).text("to", used ? "spent" : "available")
                .bool("spent", used).bigint("old_job", t.ownerJobId() == null ? -1L : t.ownerJobId())
                .bigint("old_epoch", t.ownerEpoch() == null ? -1L : t.ownerEpoch())
                .now(now)) == 1;
    }
}
