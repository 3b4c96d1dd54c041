package dev.converge.provisioning.limits;

import dev.converge.store.Params;
import dev.converge.store.Sql;
import dev.converge.store.Store;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per-tenant quotas and write rate limits. Writes are counted in a token bucket per tenant that
 * every API process shares, held in the database ({@code pv_write_bucket}, greedy refill over a
 * minute): taking a token is one atomic UPDATE, so N processes admit the tenant's rate in all, not
 * N times it. In front of it each process keeps its own Bucket4j bucket at the same rate, which
 * refuses a flood aimed at one process without a query (it can only refuse what the shared bucket
 * would refuse too: no process may admit more than the whole rate). Quotas are counted in the database when something is about to be created; racing
 * requests may overshoot a quota by the few that race, which a limit of this kind tolerates. A
 * tenant's limits are re-read at most every {@link #REFRESH}, so {@code tenant update} takes
 * effect within that time.
 */
public final class Limits {
    public static final Duration REFRESH = Duration.ofSeconds(30);

    /** What a quota counts. */
    public enum Quota {
        SITES("sites"), LEADS("leads"), OPEN_APPROVALS("open approvals");

        private final String words;

        Quota(String words) {
            this.words = words;
        }

        public String words() {
            return words;
        }
    }

    /** A quota reached: what, and the limit. */
    public record Exceeded(Quota quota, int limit) {
    }

    private record Cached(TenantLimits limits, long until) {
    }

    private record Rate(Bucket bucket, int perMinute) {
    }

    private final Store store;
    private final TenantLimits defaults;
    private final Sql read;
    private final Sql update;
    private final Map<Quota, Sql> counts;
    private final Map<Long, Cached> cache = new ConcurrentHashMap<>();
    private final Map<Long, Rate> rates = new ConcurrentHashMap<>();
    /** The engine clock's now (the database's, unless a test sets it) in epoch milliseconds. */
    private static final String NOW_MS = "CAST(EXTRACT(EPOCH FROM {now}) * 1000 AS BIGINT)";
    private final Sql take;
    private final Sql seed;
    private final Sql level;

    public Limits(Store store, TenantLimits defaults) {
        this.store = store;
        this.defaults = defaults;
        read = Sql.of(store, "SELECT max_sites, max_leads, max_open_approvals, writes_per_minute FROM pv_tenant WHERE id = :id");
        update = Sql.of(store, "UPDATE pv_tenant SET max_sites = COALESCE(:max_sites, max_sites), max_leads = "
                + "COALESCE(:max_leads, max_leads), max_open_approvals = COALESCE(:max_open_approvals, max_open_approvals), "
                + "writes_per_minute = COALESCE(:writes_per_minute, writes_per_minute) WHERE id = :id");
        // micro-tokens; refill = elapsed ms * perMinute * 1e6 / 60000 = elapsed * perMinute * 50 / 3,
        // elapsed bounded to an hour (and never negative: nodes' clocks may differ a little)
        String refilled = "LEAST(CAST(:cap_u AS BIGINT), tokens_u + LEAST(GREATEST(" + NOW_MS + " - refilled_ms, 0), 3600000) * CAST(:per_min AS BIGINT) * 50 / 3)";
        take = Sql.of(store, "UPDATE pv_write_bucket SET tokens_u = " + refilled + " - 1000000, "
                + "refilled_ms = GREATEST(refilled_ms, " + NOW_MS + ") WHERE tenant_id = :id AND " + refilled + " >= 1000000");
        seed = Sql.of(store, "INSERT INTO pv_write_bucket (tenant_id, tokens_u, refilled_ms) VALUES (:id, CAST(:cap_u AS BIGINT) - 1000000, " + NOW_MS + ")");
        level = Sql.of(store, "SELECT " + refilled + " FROM pv_write_bucket WHERE tenant_id = :id");
        counts = Map.of(
                Quota.SITES, Sql.of(store, "SELECT COUNT(*) FROM pv_site WHERE tenant_id = :id AND state <> 'deleted'"),
                Quota.LEADS, Sql.of(store, "SELECT COUNT(*) FROM pv_lead WHERE tenant_id = :id"),
                Quota.OPEN_APPROVALS, Sql.of(store, "SELECT COUNT(*) FROM pv_approval WHERE tenant_id = :id "
                        + "AND used_at IS NULL AND expires_at > {now}"));
    }

    public Limits(Store store) {
        this(store, TenantLimits.DEFAULTS);
    }

    /** The tenant's limits now (its own where set, the defaults otherwise). */
    public TenantLimits of(long tenantId) {
        long now = System.nanoTime();
        Cached c = cache.get(tenantId);
        if (c != null && now - c.until() < 0) {
            return c.limits();
        }
        TenantLimits l = store.withConnection(conn -> read.queryOne(conn, Params.of().bigint("id", tenantId),
                rs -> new TenantLimits(or(rs, "max_sites", defaults.maxSites()), or(rs, "max_leads", defaults.maxLeads()),
                        or(rs, "max_open_approvals", defaults.maxOpenApprovals()),
                        or(rs, "writes_per_minute", defaults.writesPerMinute()))));
        l = l == null ? defaults : l;
        cache.put(tenantId, new Cached(l, now + REFRESH.toNanos()));
        return l;
    }

    /** Sets the given limits of a tenant (null leaves one as it is); false if there is no such tenant. */
    public boolean update(long tenantId, Integer maxSites, Integer maxLeads, Integer maxOpenApprovals,
            Integer writesPerMinute) {
        for (Integer v : new Integer[] {maxSites, maxLeads, maxOpenApprovals}) {
            if (v != null && v < 0) {
                throw new IllegalArgumentException("a quota must not be negative");
            }
        }
        if (writesPerMinute != null && writesPerMinute < 1) {
            throw new IllegalArgumentException("--writes-per-minute must be at least 1");
        }
        boolean found = store.withConnection(c -> update.update(c, Params.of().bigint("id", tenantId)
                .integer("max_sites", maxSites).integer("max_leads", maxLeads)
                .integer("max_open_approvals", maxOpenApprovals).integer("writes_per_minute", writesPerMinute)) == 1);
        cache.remove(tenantId);
        return found;
    }

    /** The quota the tenant has reached for one more of {@code quota}, if it has. */
    public Optional<Exceeded> wouldExceed(long tenantId, Quota quota) {
        TenantLimits l = of(tenantId);
        int limit = switch (quota) {
            case SITES -> l.maxSites();
            case LEADS -> l.maxLeads();
            case OPEN_APPROVALS -> l.maxOpenApprovals();
        };
        long used = store.withConnection(c -> counts.get(quota).queryOne(c,
                Params.of().now(store.clock().sqlNow()).bigint("id", tenantId), rs -> rs.getLong(1)));
        return used >= limit ? Optional.of(new Exceeded(quota, limit)) : Optional.empty();
    }

    /**
     * Takes one write from the tenant's shared bucket (after its local one): empty if allowed, else
     * the seconds to wait.
     */
    public OptionalLong tryWrite(long tenantId) {
        OptionalLong local = tryLocal(tenantId);
        if (local.isPresent()) {
            return local;
        }
        return tryShared(tenantId, of(tenantId).writesPerMinute());
    }

    /** The bucket all processes share: one UPDATE takes a token if the refilled level has one. */
    OptionalLong tryShared(long tenantId, int perMinute) {
        long capU = perMinute * 1_000_000L;
        Params p = Params.of().bigint("id", tenantId).bigint("cap_u", capU).bigint("per_min", (long) perMinute)
                .now(store.clock().sqlNow());
        for (int round = 0; round < 2; round++) {
            Long[] level0 = new Long[1];
            boolean taken = store.withConnection(c -> {
                if (take.update(c, p) == 1) {
                    return true;
                }
                level0[0] = level.queryOne(c, p, rs -> rs.getLong(1));
                return false;
            });
            if (taken) {
                return OptionalLong.empty();
            }
            if (level0[0] != null) {
                long missingU = 1_000_000L - level0[0];
                // perMinute tokens a minute = perMinute * 1e6 / 60 micro-tokens a second
                long perSecondU = Math.max(1, perMinute * 1_000_000L / 60);
                return OptionalLong.of(Math.max(1, (missingU + perSecondU - 1) / perSecondU));
            }
            try { // the tenant's first write anywhere: its bucket starts full, less this write
                store.withConnection(c -> seed.update(c, p));
                return OptionalLong.empty();
            } catch (dev.converge.store.StoreException e) {
                if (!(e.getCause() instanceof java.sql.SQLException q) || !"23505".equals(q.getSQLState())) {
                    throw e;
                }
                // another process seeded it first: take from it like any other time
            }
        }
        throw new IllegalStateException("the write bucket of tenant " + tenantId + " could be neither seeded nor read");
    }

    private OptionalLong tryLocal(long tenantId) {
        int perMinute = of(tenantId).writesPerMinute();
        Rate rate = rates.compute(tenantId, (id, r) -> r != null && r.perMinute() == perMinute ? r
                : new Rate(Bucket.builder().addLimit(b -> b.capacity(perMinute).refillGreedy(perMinute,
                        Duration.ofMinutes(1))).build(), perMinute));
        ConsumptionProbe probe = rate.bucket().tryConsumeAndReturnRemaining(1);
        if (probe.isConsumed()) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(Math.max(1, (probe.getNanosToWaitForRefill() + 999_999_999L) / 1_000_000_000L));
    }

    private static int or(java.sql.ResultSet rs, String column, int fallback) throws java.sql.SQLException {
        Integer v = Sql.nullableInt(rs, column);
        return v == null ? fallback : v;
    }
}
