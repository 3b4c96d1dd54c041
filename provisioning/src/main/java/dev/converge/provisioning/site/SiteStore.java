package dev.converge.provisioning.site;

import dev.converge.store.Params;
import dev.converge.store.Sql;
import dev.converge.store.Store;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The SQL of {@code pv_site} and {@code pv_subdomain}. A site's state moves only by conditional
 * updates from the state the caller expects, so late or duplicate steps cannot undo a later
 * decision (a confirmation arriving after a delete was requested changes nothing).
 */
public final class SiteStore {
    private static final String COLUMNS = "id, tenant_id, lead_id, subdomain, template, plan, state, provision_flow_id, "
            + "teardown_flow_id, receipt, confirmation, failure, created_at, updated_at, subscription, trial_ends_at, subscribed_at, "
            + "public_id, (SELECT l.public_id FROM pv_lead l WHERE l.id = pv_site.lead_id) AS lead_public_id";
    /** The states in which a site's trial still runs: a failed or deleted site has nothing left to expire. */
    private static final String TRIAL_RUNS = "subscription = 'trial' AND state IN ('provisioning', 'active')";

    private final Store store;
    private final Sql insert;
    private final Sql insertWithTrial;
    private final Sql claimSubdomain;
    private final Sql byPublicId;
    private final Sql provisioningHead;
    private final Sql nextQueued;
    private final Sql admit;
    private final Sql retakeSubdomain;
    private final Sql subdomainHolder;
    private final Sql freeSubdomain;
    private final Sql get;
    private final Sql getAnyTenant;
    private final Sql list;
    private final Sql listByState;
    private final Sql setFlow;
    private final Sql setTeardownFlow;
    private final Sql move;
    private final Sql confirm;
    private final Sql activeOfLead;
    private final Sql subscribe;
    private final Sql expire;
    private final Sql dueForExpiry;
    private final Sql dueForReminder;
    private final Sql markReminded;
    private final Sql retry;
    private final Sql retryRestartingTrial;

    /**
     * On PostgreSQL a conflicting insert would abort the caller's whole transaction, so the claim
     * skips the row instead; H2 fails only the statement, with 23505, which the claim reads as taken.
     */
    private static String onConflictDoNothing(Store store) {
        return store.database().equals("postgresql") ? " ON CONFLICT DO NOTHING" : "";
    }

    public SiteStore(Store store) {
        this.store = store;
        insert = Sql.of(store, "INSERT INTO pv_site (tenant_id, lead_id, subdomain, template, plan, state, receipt, created_at, "
                + "updated_at) VALUES (:tenant_id, :lead_id, :subdomain, :template, :plan, 'provisioning', '{}', {now}, {now})");
        insertWithTrial = Sql.of(store, "INSERT INTO pv_site (tenant_id, lead_id, subdomain, template, plan, state, receipt, "
                + "created_at, updated_at, trial_ends_at) VALUES (:tenant_id, :lead_id, :subdomain, :template, :plan, "
                + "'provisioning', '{}', {now}, {now}, {now+:trial_ms})");
        claimSubdomain = Sql.of(store, "INSERT INTO pv_subdomain (subdomain, site_id, tenant_id, created_at) "
                + "VALUES (:subdomain, :site_id, :tenant_id, {now})" + onConflictDoNothing(store));
        // a released subdomain: its tenant's during the hold, anyone's after; the row lock makes one claim win
        String mayRetake = "released_at IS NOT NULL AND (tenant_id = :tenant_id OR released_at <= {now+:held_since_ms})";
        retakeSubdomain = Sql.of(store, "UPDATE pv_subdomain SET site_id = :site_id, tenant_id = :tenant_id, created_at = {now}, "
                + "released_at = NULL WHERE subdomain = :subdomain AND " + mayRetake);
        subdomainHolder = Sql.of(store, "SELECT site_id FROM pv_subdomain WHERE subdomain = :subdomain AND NOT ("
                + mayRetake + ")");
        freeSubdomain = Sql.of(store, "UPDATE pv_subdomain SET released_at = {now} WHERE subdomain = :subdomain "
                + "AND site_id = :site_id AND released_at IS NULL");
        get = Sql.of(store, "SELECT " + COLUMNS + " FROM pv_site WHERE id = :id AND tenant_id = :tenant_id");
        byPublicId = Sql.of(store, "SELECT id FROM pv_site WHERE public_id = :public_id AND tenant_id = :tenant_id");
        // the oldest provisioning sites, in flight (with a flow) or queued (without): at most :n of them
        provisioningHead = Sql.of(store, "SELECT provision_flow_id FROM pv_site WHERE state = 'provisioning' AND id <> :self "
                + "ORDER BY id LIMIT :n");
        // queued sites, fairest first: a tenant with fewer provisionings in flight, then its older requests
        nextQueued = Sql.of(store, "SELECT q.id FROM (SELECT id, tenant_id, ROW_NUMBER() OVER (PARTITION BY tenant_id "
                + "ORDER BY id) AS rn FROM pv_site WHERE state = 'provisioning' AND provision_flow_id IS NULL) q "
                + "LEFT JOIN (SELECT tenant_id, COUNT(*) AS n FROM pv_site WHERE state = 'provisioning' "
                + "AND provision_flow_id IS NOT NULL GROUP BY tenant_id) f ON f.tenant_id = q.tenant_id "
                + "ORDER BY COALESCE(f.n, 0) + q.rn, q.id LIMIT :limit");
        admit = Sql.of(store, "UPDATE pv_site SET provision_flow_id = :flow_id WHERE id = :id AND state = 'provisioning' "
                + "AND provision_flow_id IS NULL");
        getAnyTenant = Sql.of(store, "SELECT " + COLUMNS + " FROM pv_site WHERE id = :id");
        list = Sql.of(store, "SELECT " + COLUMNS + " FROM pv_site WHERE tenant_id = :tenant_id AND id > :after "
                + "ORDER BY id LIMIT :limit");
        listByState = Sql.of(store, "SELECT " + COLUMNS + " FROM pv_site WHERE tenant_id = :tenant_id AND state = :state "
                + "AND id > :after ORDER BY id LIMIT :limit");
        setFlow = Sql.of(store, "UPDATE pv_site SET provision_flow_id = :flow_id, receipt = :receipt WHERE id = :id");
        setTeardownFlow = Sql.of(store, "UPDATE pv_site SET teardown_flow_id = :flow_id WHERE id = :id");
        move = Sql.of(store, "UPDATE pv_site SET state = :to, failure = COALESCE(:failure, failure), updated_at = {now} "
                + "WHERE id = :id AND state = :from");
        confirm = Sql.of(store, "UPDATE pv_site SET state = 'active', confirmation = :confirmation, updated_at = {now} "
                + "WHERE id = :id AND state = 'provisioning'");
        activeOfLead = Sql.of(store, "SELECT COUNT(*) FROM pv_site WHERE lead_id = :lead_id AND state = 'active'");
        // a late subscription (deadline passed, expiry not yet run) is still taken: the expiry is what ends a trial
        subscribe = Sql.of(store, "UPDATE pv_site SET subscription = 'subscribed', subscribed_at = {now}, updated_at = {now} "
                + "WHERE id = :id AND tenant_id = :tenant_id AND " + TRIAL_RUNS);
        expire = Sql.of(store, "UPDATE pv_site SET subscription = 'expired', state = 'deleting', updated_at = {now} "
                + "WHERE id = :id AND " + TRIAL_RUNS + " AND trial_ends_at <= {now}");
        dueForExpiry = Sql.of(store, "SELECT id FROM pv_site WHERE " + TRIAL_RUNS + " AND trial_ends_at <= {now} "
                + "ORDER BY trial_ends_at, id LIMIT :limit");
        dueForReminder = Sql.of(store, "SELECT id FROM pv_site WHERE " + TRIAL_RUNS + " AND trial_ends_at > {now} "
                + "AND trial_ends_at <= {now+:remind_ms} AND reminder_at IS NULL ORDER BY trial_ends_at, id LIMIT :limit");
        // a retried site starts provisioning again; a trial it is still in starts again from now (it had no site)
        String retrying = "UPDATE pv_site SET state = 'provisioning', failure = NULL, updated_at = {now}";
        retry = Sql.of(store, retrying + " WHERE id = :id AND state = 'failed'");
        retryRestartingTrial = Sql.of(store, retrying + ", trial_ends_at = CASE WHEN subscription = 'trial' "
                + "AND trial_ends_at IS NOT NULL THEN {now+:trial_ms} ELSE trial_ends_at END, reminder_at = NULL "
                + "WHERE id = :id AND state = 'failed'");
        markReminded = Sql.of(store, "UPDATE pv_site SET reminder_at = {now} WHERE id = :id AND reminder_at IS NULL AND "
                + TRIAL_RUNS);
    }

    /** @param trial how long the site's trial lasts from now (its deadline is stored), or null for none */
    public long insert(Connection c, long tenantId, long leadId, String subdomain, String template, String plan,
            Instant now, java.time.Duration trial) throws SQLException {
        Params p = Params.of().now(now).bigint("tenant_id", tenantId).bigint("lead_id", leadId).text("subdomain", subdomain)
                .text("template", template).text("plan", plan);
        Sql statement = trial == null ? insert : insertWithTrial;
        if (trial != null) {
            p.bigint("trial_ms", trial.toMillis());
        }
        try (PreparedStatement ps = statement.prepareReturning(c, p, "id")) {
            ps.executeUpdate();
            try (ResultSet rs = ps.getGeneratedKeys()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /**
     * Claims the subdomain for the site; false if another site holds it, or a site of another tenant
     * released it less than {@code hold} ago. Never breaks the caller's transaction.
     */
    public boolean claimSubdomain(Connection c, String subdomain, long siteId, long tenantId, Instant now,
            java.time.Duration hold) throws SQLException {
        if (retakeSubdomain.update(c, Params.of().now(now).text("subdomain", subdomain).bigint("site_id", siteId)
                .bigint("tenant_id", tenantId).bigint("held_since_ms", -hold.toMillis())) == 1) {
            return true;
        }
        try {
            return claimSubdomain.update(c, Params.of().now(now).text("subdomain", subdomain).bigint("site_id", siteId)
                    .bigint("tenant_id", tenantId)) == 1;
        } catch (SQLException e) {
            if ("23505".equals(e.getSQLState()) && !store.database().equals("postgresql")) {
                return false;
            }
            throw e;
        }
    }

    /**
     * The site that keeps {@code tenantId} from claiming the subdomain: the one using it, or another
     * tenant's that released it within the hold. Empty when the tenant may claim it.
     */
    public Optional<Long> subdomainHolder(Connection c, String subdomain, long tenantId, Instant now,
            java.time.Duration hold) throws SQLException {
        return Optional.ofNullable(subdomainHolder.queryOne(c, Params.of().now(now).text("subdomain", subdomain)
                .bigint("tenant_id", tenantId).bigint("held_since_ms", -hold.toMillis()), rs -> rs.getLong(1)));
    }

    /** Releases the site's subdomain: it stays its tenant's for the hold (the row is kept, marked released). */
    public void freeSubdomain(Connection c, String subdomain, long siteId, Instant now) throws SQLException {
        freeSubdomain.update(c, Params.of().now(now).text("subdomain", subdomain).bigint("site_id", siteId));
    }

    public Optional<Site> get(Connection c, long tenantId, long id) throws SQLException {
        return Optional.ofNullable(get.queryOne(c, Params.of().bigint("id", id).bigint("tenant_id", tenantId), SiteStore::row));
    }

    /** For the service's own jobs, which act on a site by id whoever its tenant. */
    public Optional<Site> get(Connection c, long id) throws SQLException {
        return Optional.ofNullable(getAnyTenant.queryOne(c, Params.of().bigint("id", id), SiteStore::row));
    }

    public List<Site> list(Connection c, long tenantId, SiteState state, long after, int limit) throws SQLException {
        Params p = Params.of().bigint("tenant_id", tenantId).bigint("after", after).integer("limit", limit);
        return state == null ? list.query(c, p, SiteStore::row)
                : listByState.query(c, p.text("state", state.sql()), SiteStore::row);
    }

    /**
     * Provisionings in flight (a flow started) and whether any waits for admission, looking at no more
     * than the oldest {@code cap + 1} provisioning sites: enough to tell whether there is room.
     *
     * @param self a site being requested, left out (0: none)
     */
    public Admission admission(Connection c, int cap, long self) throws SQLException {
        List<Long> head = provisioningHead.query(c, Params.of().integer("n", cap + 1).bigint("self", self),
                rs -> Sql.nullableLong(rs, 1));
        long inFlight = head.stream().filter(java.util.Objects::nonNull).count();
        return new Admission((int) inFlight, inFlight < head.size());
    }

    /** What {@link #admission} saw: provisionings in flight (up to cap + 1) and whether a site waits. */
    public record Admission(int inFlight, boolean queued) {
    }

    /** Up to {@code limit} queued sites, the fairest first (see the statement). */
    public List<Long> nextQueued(Connection c, int limit) throws SQLException {
        return nextQueued.query(c, Params.of().integer("limit", limit), rs -> rs.getLong(1));
    }

    /** Gives a queued site its provisioning flow; false if it was admitted, deleted or retried meanwhile. */
    public boolean admit(Connection c, long id, long flowId) throws SQLException {
        return admit.update(c, Params.of().bigint("id", id).bigint("flow_id", flowId)) == 1;
    }

    /** @param flowId null for a site queued for admission */
    public void setProvisionFlow(Connection c, long id, Long flowId, String receipt) throws SQLException {
        setFlow.update(c, Params.of().bigint("id", id).bigint("flow_id", flowId).text("receipt", receipt));
    }

    public void setTeardownFlow(Connection c, long id, long flowId) throws SQLException {
        setTeardownFlow.update(c, Params.of().bigint("id", id).bigint("flow_id", flowId));
    }

    /** Moves the site from one state to another; false if it was not in {@code from}. */
    public boolean move(Connection c, long id, SiteState from, SiteState to, String failure, Instant now)
            throws SQLException {
        if (!from.canMoveTo(to)) {
            throw new IllegalStateException("site transition " + from + " -> " + to + " is not allowed");
        }
        return move.update(c, Params.of().now(now).bigint("id", id).text("from", from.sql()).text("to", to.sql())
                .text("failure", failure)) == 1;
    }

    /** provisioning -> active with what was confirmed; false if the site is no longer provisioning. */
    public boolean confirm(Connection c, long id, String confirmation, Instant now) throws SQLException {
        return confirm.update(c, Params.of().now(now).bigint("id", id).text("confirmation", confirmation)) == 1;
    }

    /** How many of the lead's sites are active: a lead is a customer while it has one. */
    public int activeOfLead(Connection c, long leadId) throws SQLException {
        return activeOfLead.queryOne(c, Params.of().bigint("lead_id", leadId), rs -> rs.getInt(1));
    }

    /**
     * trial -> subscribed, for a site whose trial still runs; false otherwise (already subscribed,
     * expired, failed, deleted). The one write that decides a subscription racing the expiry.
     */
    public boolean subscribe(Connection c, long tenantId, long id, Instant now) throws SQLException {
        return subscribe.update(c, Params.of().now(now).bigint("id", id).bigint("tenant_id", tenantId)) == 1;
    }

    /**
     * trial -> expired and provisioning/active -> deleting, for a site whose deadline has passed;
     * false if it was subscribed (or had moved on) first. The expiry's side of the same decision.
     */
    public boolean expire(Connection c, long id, Instant now) throws SQLException {
        return expire.update(c, Params.of().now(now).bigint("id", id)) == 1;
    }

    /**
     * failed -> provisioning, for a person's retry; false if the site was not failed (two people
     * retrying at once: one wins). A trial the site is still in restarts from now when {@code trial}
     * is set.
     */
    public boolean retry(Connection c, long id, java.time.Duration trial, Instant now) throws SQLException {
        Params p = Params.of().now(now).bigint("id", id);
        if (trial == null) {
            return retry.update(c, p) == 1;
        }
        return retryRestartingTrial.update(c, p.bigint("trial_ms", trial.toMillis())) == 1;
    }

    /** Sites whose trial has run out and that are still up, oldest deadline first. */
    public List<Long> dueForExpiry(Connection c, Instant now, int limit) throws SQLException {
        return dueForExpiry.query(c, Params.of().now(now).integer("limit", limit), rs -> rs.getLong(1));
    }

    /** Sites whose trial ends within {@code before} of now, not yet reminded. */
    public List<Long> dueForReminder(Connection c, Instant now, java.time.Duration before, int limit) throws SQLException {
        return dueForReminder.query(c, Params.of().now(now).bigint("remind_ms", before.toMillis())
                .integer("limit", limit), rs -> rs.getLong(1));
    }

    /** The database id of the tenant's site with this public id, if the tenant has one. */
    public Optional<Long> idOf(Connection c, long tenantId, String publicId) throws SQLException {
        return Optional.ofNullable(byPublicId.queryOne(c, Params.of().text("public_id", publicId).bigint("tenant_id", tenantId),
                rs -> rs.getLong(1)));
    }

    /** Notes that the site's reminder is queued; false if it already was (or its trial no longer runs). */
    public boolean markReminded(Connection c, long id, Instant now) throws SQLException {
        return markReminded.update(c, Params.of().now(now).bigint("id", id)) == 1;
    }

    private static Site row(ResultSet rs) throws SQLException {
        return new Site(rs.getLong("id"), rs.getLong("tenant_id"), rs.getLong("lead_id"), rs.getString("subdomain"),
                rs.getString("template"), rs.getString("plan"), SiteState.fromSql(rs.getString("state")),
                Sql.nullableLong(rs, "provision_flow_id"), Sql.nullableLong(rs, "teardown_flow_id"),
                rs.getString("receipt"), rs.getString("confirmation"), rs.getString("failure"),
                Sql.instant(rs, "created_at"), Sql.instant(rs, "updated_at"),
                Subscription.fromSql(rs.getString("subscription")), Sql.instant(rs, "trial_ends_at"),
                Sql.instant(rs, "subscribed_at"), rs.getString("public_id"), rs.getString("lead_public_id"));
    }
}
