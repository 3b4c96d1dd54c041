package dev.converge.provisioning.approval;

import dev.converge.provisioning.access.Credentials;
import dev.converge.store.Store;
import dev.converge.store.Params;
import dev.converge.store.Sql;
import java.security.SecureRandom;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Objects;

/**
 * One-time approvals ({@code pv_approval}): a person mints one for one action on one site of
 * their tenant; it is used at most once, before it expires. Using it is one conditional UPDATE
 * ({@code used_at IS NULL AND expires_at > now}), so of any number of racing callers exactly one
 * gets it. Only the token's SHA-256 is stored. Expiry is decided by the database clock.
 */
public final class Approvals {
    public static final Duration DEFAULT_TTL = Duration.ofMinutes(15);
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Store store;
    private final Duration ttl;
    private final Sql insert;
    private final Sql byId;
    private final Sql consume;
    private final Sql byHash;
    private final Sql giveBack;
    private final Sql purge;

    public Approvals(Store store, Duration ttl) {
        this.store = Objects.requireNonNull(store, "store");
        if (ttl == null || ttl.isNegative() || ttl.isZero() || ttl.compareTo(Duration.ofDays(1)) > 0) {
            throw new IllegalArgumentException("approval ttl must be positive and at most a day");
        }
        this.ttl = ttl;
        insert = Sql.of(store, "INSERT INTO pv_approval (tenant_id, site_id, action, token_hash, created_at, expires_at) "
                + "VALUES (:tenant_id, :site_id, :action, :hash, {now}, {now+:ttl_ms})");
        byId = Sql.of(store, "SELECT expires_at FROM pv_approval WHERE id = :id");
        consume = Sql.of(store, "UPDATE pv_approval SET used_at = {now} WHERE token_hash = :hash AND tenant_id = :tenant_id "
                + "AND site_id = :site_id AND action = :action AND used_at IS NULL AND expires_at > {now}");
        byHash = Sql.of(store, "SELECT id, tenant_id, site_id, action, used_at, "
                + "CASE WHEN expires_at > {now} THEN 0 ELSE 1 END AS expired FROM pv_approval WHERE token_hash = :hash");
        giveBack = Sql.of(store, "UPDATE pv_approval SET used_at = NULL WHERE id = :id AND used_at IS NOT NULL");
        purge = Sql.of(store, "DELETE FROM pv_approval WHERE expires_at < {now}");
    }

    public Approvals(Store store) {
        this(store, DEFAULT_TTL);
    }

    public Duration ttl() {
        return ttl;
    }

    /** Mints an approval; the returned token is the only copy there will ever be. */
    public Approval mint(long tenantId, long siteId, ApprovalAction action) {
        byte[] raw = new byte[32];
        RANDOM.nextBytes(raw);
        String token = "apv_" + Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
        return store.withConnection(c -> {
            long id;
            try (PreparedStatement ps = insert.prepareReturning(c, Params.of().now(store.clock().sqlNow())
                    .bigint("tenant_id", tenantId).bigint("site_id", siteId).text("action", action.sql())
                    .text("hash", Credentials.hash(token)).bigint("ttl_ms", ttl.toMillis()), "id")) {
                ps.executeUpdate();
                try (ResultSet rs = ps.getGeneratedKeys()) {
                    rs.next();
                    id = rs.getLong(1);
                }
            }
            Instant expires = byId.queryOne(c, Params.of().bigint("id", id), rs -> Sql.instant(rs, "expires_at"));
            return new Approval(id, tenantId, siteId, action, token, expires);
        });
    }

    /** Uses the approval for this tenant's site and action: granted to exactly one caller, once. */
    public Consumption consume(long tenantId, long siteId, ApprovalAction action, String token) {
        if (token == null || token.isBlank()) {
            return new Consumption.Refused(Consumption.Reason.MISSING);
        }
        if (token.length() > 200) {
            return new Consumption.Refused(Consumption.Reason.UNKNOWN);
        }
        String hash = Credentials.hash(token.strip());
        return store.withConnection(c -> {
            Params p = Params.of().now(store.clock().sqlNow()).text("hash", hash).bigint("tenant_id", tenantId)
                    .bigint("site_id", siteId).text("action", action.sql());
            boolean won = consume.update(c, p) == 1;
            Found found = byHash.queryOne(c, Params.of().now(store.clock().sqlNow()).text("hash", hash),
                    rs -> new Found(rs.getLong("id"), rs.getLong("tenant_id"), rs.getLong("site_id"),
                            rs.getString("action"), rs.getObject("used_at") != null, rs.getInt("expired") == 1));
            if (won) {
                return new Consumption.Granted(found.id());
            }
            // another tenant's approval, or one for another site or action, is not this caller's to know about
            if (found == null || found.tenantId() != tenantId || found.siteId() != siteId
                    || !found.action().equals(action.sql())) {
                return new Consumption.Refused(Consumption.Reason.UNKNOWN);
            }
            return new Consumption.Refused(found.used() ? Consumption.Reason.USED : Consumption.Reason.EXPIRED);
        });
    }

    /**
     * Makes a granted approval usable again, for when the action it permitted definitively did
     * not happen (so a person need not mint another for an action that never ran).
     */
    public void giveBack(long approvalId) {
        store.withConnection(c -> giveBack.update(c, Params.of().bigint("id", approvalId)));
    }

    /** Deletes expired approvals (used or not): they can permit nothing any more. The number deleted. */
    public int purgeExpired() {
        return store.withConnection(c -> purge.update(c, Params.of().now(store.clock().sqlNow())));
    }

    private record Found(long id, long tenantId, long siteId, String action, boolean used, boolean expired) {
    }
}
