package dev.converge.claim.internal;

import static dev.converge.store.internal.Templates.sql;

import dev.converge.claim.Claim;
import dev.converge.store.internal.Dialect;
import dev.converge.store.Params;
import dev.converge.store.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;

/**
 * The SQL of the {@code cv_claim} table: atomic add, owner-fenced release and extend. A key's row
 * is never deleted: it carries the key's fence, which must only ever go up.
 */
public final class ClaimStore {
    private final Sql takeExpired;
    private final Sql insert;
    private final Sql release;
    private final Sql extend;
    private final Sql get;
    /** PostgreSQL: the takeover and the first insert as one statement; null where two are sent. */
    private final Sql takeOrAdd;

    public ClaimStore(Dialect dialect) {
        // a released claim keeps its row, so the next owner's fence is one higher: it never goes back
        this.takeExpired = sql(dialect, "UPDATE cv_claim SET owner = :owner, fence = fence + 1, acquired_at = {now}, "
                + "expires_at = {now+:ttl_ms}, released_at = NULL WHERE claim_key = :key "
                + "AND (expires_at <= {now} OR released_at IS NOT NULL)");
        this.insert = sql(dialect, "INSERT INTO cv_claim (claim_key, owner, fence, acquired_at, expires_at) "
                + "VALUES (:key, :owner, 1, {now}, {now+:ttl_ms})" + dialect.onConflictDoNothing());
        this.release = sql(dialect, "UPDATE cv_claim SET released_at = {now} WHERE claim_key = :key AND owner = :owner "
                + "AND fence = :fence AND released_at IS NULL");
        this.extend = sql(dialect, "UPDATE cv_claim SET expires_at = {now+:ttl_ms} WHERE claim_key = :key "
                + "AND owner = :owner AND fence = :fence AND expires_at > {now} AND released_at IS NULL");
        this.get = sql(dialect, "SELECT claim_key, owner, fence, expires_at FROM cv_claim WHERE claim_key = :key "
                + "AND released_at IS NULL");
        // a node waiting for a leadership asks every round, and nearly always finds the key held: one statement
        // that writes nothing then, where the two above were two round trips. Both parts read one snapshot:
        // a row in it is taken over only if expired or released (re-checked under its lock), a key without a
        // row is inserted (a concurrent insert of the same key wins and this one does nothing)
        this.takeOrAdd = dialect.writesThroughWith() ? sql(dialect, "WITH taken AS (UPDATE cv_claim SET owner = :owner, "
                + "fence = fence + 1, acquired_at = {now}, expires_at = {now+:ttl_ms}, released_at = NULL "
                + "WHERE claim_key = :key AND (expires_at <= {now} OR released_at IS NOT NULL) RETURNING fence, expires_at), "
                + "added AS (INSERT INTO cv_claim (claim_key, owner, fence, acquired_at, expires_at) "
                + "SELECT :key, :owner, 1, {now}, {now+:ttl_ms} WHERE NOT EXISTS (SELECT 1 FROM cv_claim WHERE claim_key = :key)"
                + dialect.onConflictDoNothing() + " RETURNING fence, expires_at) "
                + "SELECT fence, expires_at FROM taken UNION ALL SELECT fence, expires_at FROM added") : null;
    }

    /**
     * Takes the key for {@code owner} if nobody holds it (or the holder's claim expired).
     * Exactly one of any number of concurrent callers gets it: the insert is decided by the
     * primary key, the takeover of an expired claim by a conditional update re-checked under
     * the row lock.
     */
    public Optional<Claim> add(Connection c, String key, String owner, long ttlMs, Instant now) throws SQLException {
        Params p = Params.of().now(now).text("key", key).text("owner", owner).bigint("ttl_ms", ttlMs);
        if (takeOrAdd != null) {
            return Optional.ofNullable(takeOrAdd.queryOne(c, p,
                    rs -> new Claim(key, owner, rs.getLong("fence"), Sql.instant(rs, "expires_at"))));
        }
        try (PreparedStatement ps = takeExpired.prepareReturning(c, p, "fence", "expires_at")) {
            if (ps.executeUpdate() == 1) {
                try (ResultSet rs = ps.getGeneratedKeys()) {
                    rs.next();
                    return Optional.of(new Claim(key, owner, rs.getLong("fence"), Sql.instant(rs, "expires_at")));
                }
            }
        }
        try (PreparedStatement ps = insert.prepareReturning(c, p, "fence", "expires_at")) {
            if (ps.executeUpdate() == 1) {
                try (ResultSet rs = ps.getGeneratedKeys()) {
                    rs.next();
                    return Optional.of(new Claim(key, owner, rs.getLong("fence"), Sql.instant(rs, "expires_at")));
                }
            }
            return Optional.empty();
        } catch (SQLException e) {
            if ("23505".equals(e.getSQLState())) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** Releases the claim if, and only if, this owner still holds this fence of it. */
    public boolean release(Connection c, Claim claim, Instant now) throws SQLException {
        return release.update(c, Params.of().now(now).text("key", claim.key()).text("owner", claim.owner())
                .bigint("fence", claim.fence())) == 1;
    }

    /** Extends an unexpired claim still held by this owner; false if it was lost. */
    public boolean extend(Connection c, Claim claim, long ttlMs, Instant now) throws SQLException {
        return extend.update(c, Params.of().now(now).text("key", claim.key()).text("owner", claim.owner())
                .bigint("fence", claim.fence()).bigint("ttl_ms", ttlMs)) == 1;
    }

    /** The current holder of a key, expired or not; empty if nobody took it or its holder released it. */
    public Optional<Claim> get(Connection c, String key) throws SQLException {
        return Optional.ofNullable(get.queryOne(c, Params.of().text("key", key),
                rs -> new Claim(rs.getString("claim_key"), rs.getString("owner"), rs.getLong("fence"),
                        Sql.instant(rs, "expires_at"))));
    }
}
