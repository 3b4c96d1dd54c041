package dev.converge.provisioning.hand;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.converge.Converge;
import dev.converge.flow.FlowState;
import dev.converge.flow.FlowView;
import dev.converge.flow.ManualAction;
import dev.converge.ledger.LedgerEntry;
import dev.converge.provisioning.event.Events;
import dev.converge.provisioning.site.Site;
import dev.converge.provisioning.site.SiteState;
import dev.converge.provisioning.site.SiteStore;
import dev.converge.provisioning.site.Sites;
import dev.converge.provisioning.validation.PublicId;
import dev.converge.queue.JobRow;
import dev.converge.store.Store;
import dev.converge.store.Params;
import dev.converge.store.Sql;
import dev.converge.token.Token;
import java.time.Instant;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A person's hand when automation stops: retry a job that failed for good or a flow that needs
 * attention, settle a ledger entry or a token the machine could not decide. Each goes through the
 * engine's fenced paths (two people at once change it once), and each request is recorded with
 * who, why and what came of it ({@code pv_operator_action}), and in the site's history when it
 * concerns a site.
 */
public final class OperatorActions {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern SITE_SUBJECT = Pattern.compile("^site-(\\d{1,18})(/.*)?$");

    /** What came of one request: whether it changed anything, and what the person is told; the site's public id. */
    public record Outcome(boolean applied, String detail, String siteId) {
    }

    /** One recorded action; {@code siteId} is the site's public id. */
    public record Action(long id, Long tenantId, String siteId, String actor, String action, String target, String reason,
            boolean applied, String outcome, Instant at) {
    }

    private final Store store;
    private final Converge engine;
    private final Sites sites;
    private final SiteStore siteStore;
    private final Events events;
    private final Sql insert;
    private final Sql forSite;
    private final Sql forPublicSite;
    private final Sql recent;

    public OperatorActions(Store store, Converge engine, Sites sites, Events events) {
        this.store = store;
        this.engine = engine;
        this.sites = sites;
        this.siteStore = new SiteStore(store);
        this.events = events;
        insert = Sql.of(store, "INSERT INTO pv_operator_action (tenant_id, site_id, actor, action, target, reason, "
                + "applied, outcome, created_at) VALUES (:tenant_id, :site_id, :actor, :action, :target, :reason, :applied, "
                + ":outcome, {now})");
        String cols = "SELECT id, tenant_id, site_id, actor, action, target, reason, applied, outcome, created_at, "
                + "(SELECT s.public_id FROM pv_site s WHERE s.id = pv_operator_action.site_id) AS site_public_id "
                + "FROM pv_operator_action ";
        forSite = Sql.of(store, cols + "WHERE site_id = :site_id ORDER BY id");
        forPublicSite = Sql.of(store, cols + "WHERE site_id = (SELECT s.id FROM pv_site s "
                + "WHERE s.public_id = :public_id) ORDER BY id");
        recent = Sql.of(store, cols + "ORDER BY id DESC LIMIT :limit");
    }

    /** Retries a job that failed for good and stands alone (a step of a flow: retry the flow). */
    public Outcome retryJob(String actor, long jobId, String reason) {
        ManualAction.validate(actor, reason);
        JobRow job = engine.job(jobId).orElseThrow(() -> new NoSuchElementException("There is no job " + jobId + "."));
        boolean won = engine.retryFailedJob(jobId, actor, reason);
        String detail = won ? "Job " + jobId + " (" + job.kind() + ") runs again from its first attempt."
                : "Job " + jobId + " is " + engine.job(jobId).map(j -> j.state().name().toLowerCase()).orElse("gone")
                        + ", not failed: nothing was retried (someone may have retried it already).";
        return record(actor, "retry_job", "job " + jobId, reason, won, detail, siteOfPayload(job.payload()));
    }

    /**
     * Cancels a job that is waiting (available, not running); a running one is never touched. A
     * step of a flow cancelled this way ends its chain, and its flow fails and compensates.
     */
    public Outcome cancelJob(String actor, long jobId, String reason) {
        ManualAction.validate(actor, reason);
        JobRow job = engine.job(jobId).orElseThrow(() -> new NoSuchElementException("There is no job " + jobId + "."));
        boolean won = engine.cancelWaitingJob(jobId, actor, reason);
        String detail = won ? "Job " + jobId + " (" + job.kind() + ") is cancelled before it ran"
                + (job.flowId() != null ? "; flow " + job.flowId() + " fails and compensates." : ".")
                : "Job " + jobId + " is " + engine.job(jobId).map(j -> j.state().name().toLowerCase()).orElse("gone")
                        + ", not waiting: nothing was cancelled (it started, ended, or someone cancelled it already).";
        Site site = siteOfPayload(job.payload());
        if (site == null && job.flowId() != null) {
            site = engine.flows().get(job.flowId()).flatMap(f -> siteOfSubject(f.subject())).orElse(null);
        }
        return record(actor, "cancel_job", "job " + jobId, reason, won, detail, site);
    }

    /** Retries a flow that needs attention from where it stopped: its compensation runs again. */
    public Outcome retryFlow(String actor, long flowId, String reason) {
        ManualAction.validate(actor, reason);
        FlowView flow = engine.flows().get(flowId).orElseThrow(() -> new NoSuchElementException("There is no flow "
                + flowId + "."));
        return retry(actor, flow, reason, siteOfSubject(flow.subject()));
    }

    /**
     * Retries one of the tenant's sites: one that failed is provisioned again (a new attempt, once
     * the failed one's compensation finished); one that needs attention gets its teardown (when a
     * delete did not finish) or its provisioning flow's compensation retried from where it stopped.
     */
    public Outcome retrySite(String actor, long tenantId, long siteId, String reason) {
        ManualAction.validate(actor, reason);
        Site site = sites.get(tenantId, siteId).orElseThrow(() -> new NoSuchElementException("There is no site "
                + siteId + "."));
        if (site.state() == SiteState.FAILED) {
            Sites.Retry r = sites.retryProvisioning(tenantId, siteId, actor, reason);
            return record(actor, "retry_site", "site " + siteId, reason, r.applied(), r.detail(), site);
        }
        if (site.state() != SiteState.NEEDS_ATTENTION) {
            return record(actor, "retry_site", "site " + siteId, reason, false, "Site " + siteId + " is "
                    + site.state().sql() + ", neither failed nor needs_attention: nothing was retried.", site);
        }
        if (site.teardownFlowId() != null) {
            sites.delete(tenantId, siteId); // a new teardown walks the ledger again from what is left
            return record(actor, "retry_site", "site " + siteId, reason, true, "Site " + siteId
                    + " is being torn down again from what is left.", site);
        }
        FlowView flow = engine.flows().get(site.provisionFlowId()).orElseThrow();
        return retry(actor, flow, reason, Optional.of(site));
    }

    private Outcome retry(String actor, FlowView flow, String reason, Optional<Site> site) {
        boolean won = engine.flows().retry(flow.id(), actor, reason);
        String detail = won ? "Flow " + flow.id() + " (" + flow.kind() + ") compensates again from where it stopped; "
                + "its outcome is reported when that ends."
                : "Flow " + flow.id() + " is " + engine.flows().get(flow.id()).map(f -> f.state().sql()).orElse("gone")
                        + ", not " + FlowState.NEEDS_ATTENTION.sql() + ": nothing was retried (someone may have retried it already).";
        return record(actor, "retry_flow", "flow " + flow.id(), reason, won, detail, site.orElse(null));
    }

    /**
     * Settles a ledger entry the machine could not decide: {@code leafId} not null means "it exists
     * at the leaf under this id" (adopted and confirmed), null means "it does not exist" (released).
     */
    public Outcome settleEntry(String actor, long entryId, String leafId, String reason) {
        ManualAction.validate(actor, reason);
        LedgerEntry e = engine.ledger().entry(entryId).orElseThrow(() -> new NoSuchElementException(
                "There is no ledger entry " + entryId + "."));
        boolean won = leafId != null ? engine.ledger().settleExists(entryId, leafId, actor, reason)
                : engine.ledger().settleAbsent(entryId, actor, reason);
        String what = e.kind() + " '" + e.naturalKey() + "'";
        String detail = won ? (leafId != null ? what + " exists as " + leafId + ": adopted and confirmed."
                : what + " does not exist: released.")
                : what + " is " + engine.ledger().entry(entryId).map(x -> x.state().sql()).orElse("gone")
                        + ": only a claimed or uncertain entry whose owner is not running is settled by hand; nothing changed.";
        return record(actor, leafId != null ? "settle_entry_exists" : "settle_entry_absent", "ledger entry " + entryId,
                reason, won, detail, siteOfSubject(e.subject()).orElse(null));
    }

    /** Settles a token whose use is unknown: spent (the use happened) or available again (it did not). */
    public Outcome settleToken(String actor, long tokenId, boolean used, String reason) {
        ManualAction.validate(actor, reason);
        Token t = engine.tokens().get(tokenId).orElseThrow(() -> new NoSuchElementException("There is no token "
                + tokenId + "."));
        boolean won = engine.tokens().settle(tokenId, used, actor, reason);
        String detail = won ? "Token " + tokenId + " of pool " + t.pool() + (used ? " is spent: its use happened."
                : " is available again: its use did not happen.")
                : "Token " + tokenId + " has no unknown use to settle (it is "
                        + engine.tokens().get(tokenId).map(x -> x.state().sql()).orElse("gone") + "); nothing changed.";
        return record(actor, used ? "settle_token_used" : "settle_token_unused", "token " + tokenId, reason, won, detail,
                t.subject() == null ? null : siteOfSubject(t.subject()).orElse(null));
    }

    /** Pauses a recurring job fleet-wide: its slots pass, not run, until it is resumed. */
    public Outcome pauseRecurring(String actor, String name, String reason) {
        boolean won = engine.recurring().pause(name, actor, reason);
        return record(actor, "pause_recurring", "recurring job " + name, reason, won, won ? "Recurring job " + name
                + " is paused: its slots pass, not run, until it is resumed." : "Recurring job " + name
                        + " was paused already; nothing changed.", null);
    }

    /** Resumes a paused recurring job from its next slot (the slots that passed while paused are not run). */
    public Outcome resumeRecurring(String actor, String name, String reason) {
        boolean won = engine.recurring().resume(name, actor, reason);
        return record(actor, "resume_recurring", "recurring job " + name, reason, won, won ? "Recurring job " + name
                + " runs again from its next slot; the slots that passed while paused are not run." : "Recurring job "
                        + name + " was not paused; nothing changed.", null);
    }

    /** Runs a recurring job once now, beside its schedule. */
    public Outcome runRecurring(String actor, String name, String reason) {
        long id = engine.recurring().runNow(name, actor, reason);
        return record(actor, "run_recurring", "recurring job " + name, reason, true, "Recurring job " + name
                + " runs now as job " + id + "; its schedule goes on unchanged.", null);
    }

    public List<Action> forSite(long siteId) {
        return store.withConnection(c -> forSite.query(c, Params.of().bigint("site_id", siteId), OperatorActions::action));
    }

    /** The actions on the site a reference names (of any tenant: operators see every site). */
    public List<Action> forSite(PublicId.Ref site) {
        return !site.isPublic() ? forSite(site.legacyId()) : store.withConnection(c -> forPublicSite.query(c,
                Params.of().text("public_id", site.publicId()), OperatorActions::action));
    }

    public List<Action> recent(int limit) {
        return store.withConnection(c -> recent.query(c, Params.of().integer("limit", limit), OperatorActions::action));
    }

    private Outcome record(String actor, String action, String target, String reason, boolean applied, String detail,
            Site site) {
        store.inTransaction(c -> {
            insert.update(c, Params.of().now(store.clock().sqlNow()).bigint("tenant_id", site == null ? null : site.tenantId())
                    .bigint("site_id", site == null ? null : site.id()).text("actor", actor).text("action", action)
                    .text("target", target).text("reason", reason).bool("applied", applied).text("outcome", detail));
            if (site != null && applied) {
                events.record(c, site.tenantId(), site.id(), "site.operator_action",
                        action + " of " + target + " by " + actor + ": " + reason);
            }
            return null;
        });
        return new Outcome(applied, detail, site == null ? null : site.publicId());
    }

    private Optional<Site> siteOfSubject(String subject) {
        Matcher m = subject == null ? null : SITE_SUBJECT.matcher(subject);
        if (m == null || !m.matches()) {
            return Optional.empty();
        }
        long id = Long.parseLong(m.group(1));
        return store.withConnection(c -> siteStore.get(c, id));
    }

    private Site siteOfPayload(String payload) {
        try {
            JsonNode n = JSON.readTree(payload).path("siteId");
            return n.canConvertToLong() ? store.withConnection(c -> siteStore.get(c, n.asLong())).orElse(null) : null;
        } catch (java.io.IOException | RuntimeException e) {
            return null;
        }
    }

    private static Action action(java.sql.ResultSet rs) throws java.sql.SQLException {
        return new Action(rs.getLong("id"), Sql.nullableLong(rs, "tenant_id"), rs.getString("site_public_id"),
                rs.getString("actor"), rs.getString("action"), rs.getString("target"), rs.getString("reason"),
                rs.getBoolean("applied"), rs.getString("outcome"), Sql.instant(rs, "created_at"));
    }
}
