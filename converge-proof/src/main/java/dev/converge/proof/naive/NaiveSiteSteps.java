package dev.converge.proof.naive;

import dev.converge.provisioning.event.Events;
import dev.converge.provisioning.flow.SiteJobs.ResourceStep;
import dev.converge.provisioning.flow.SiteJobs.SiteRef;
import dev.converge.provisioning.flow.SiteJobs;
import dev.converge.provisioning.flow.SiteResources;
import dev.converge.provisioning.lead.Lead;
import dev.converge.provisioning.lead.LeadStatus;
import dev.converge.provisioning.lead.Leads;
import dev.converge.provisioning.mail.SmtpMailer;
import dev.converge.provisioning.mail.WelcomeEmail;
import dev.converge.provisioning.site.Receipts;
import dev.converge.provisioning.site.Site;
import dev.converge.provisioning.site.SiteStore;
import dev.converge.provisioning.site.StepHandlers;
import dev.converge.handler.JobContext;
import dev.converge.queue.NonRetryableException;
import dev.converge.store.Store;
import dev.converge.store.Params;
import dev.converge.store.Sql;
import java.util.UUID;

/**
 * The steps written the naive way, for the chaos run's naive mode only: create at
 * the leaf with no claim, no lookup and a fresh idempotency key per attempt, then record the
 * answer (overwriting whatever an earlier attempt recorded); send the welcome email with no
 * token; mark the site active and the lead a customer before the work is done. Run under faults
 * and kills, this must show duplicates and orphans, or the checker is broken.
 */
public final class NaiveSiteSteps {
    private final Store store;
    private final SiteStore sites;
    private final Leads leads;
    private final SiteResources resources;
    private final SmtpMailer mailer;
    private final Receipts receipts;
    private final Events events;
    private final Sql record;
    private final Sql recordNew;
    private final SiteJobs jobs;

    /** The naive create, welcome and confirm handlers, registered by a node in place of the site steps' own. */
    public static StepHandlers handlers() {
        return (b, jobs, parts) -> {
            NaiveSiteSteps bad = new NaiveSiteSteps(parts.store(), parts.sites(), parts.leads(), parts.events(),
                    parts.resources(), parts.mailer(), parts.receipts(), jobs);
            b.handle(jobs.createResource, bad::createResource).handle(jobs.welcome, bad::welcome)
                    .handle(jobs.confirm, bad::confirm);
        };
    }

    private NaiveSiteSteps(Store store, SiteStore sites, Leads leads, Events events, SiteResources resources, SmtpMailer mailer,
            Receipts receipts, SiteJobs jobs) {
        this.jobs = jobs;
        this.store = store;
        this.sites = sites;
        this.leads = leads;
        this.events = events;
        this.resources = resources;
        this.mailer = mailer;
        this.receipts = receipts;
        this.record = Sql.of(store, "UPDATE cv_ledger SET state = 'confirmed', leaf_id = :leaf_id, "
                + "updated_at = {now}, confirmed_at = {now} WHERE kind = :kind AND natural_key = :key");
        this.recordNew = Sql.of(store, "INSERT INTO cv_ledger (kind, natural_key, subject, state, safety, leaf_id, "
                + "created_at, updated_at, confirmed_at) VALUES (:kind, :key, :subject, 'confirmed', 'unsafe', :leaf_id, "
                + "{now}, {now}, {now})");
    }

    private Site site(long id) {
        return store.withConnection(c -> sites.get(c, id))
                .orElseThrow(() -> new NonRetryableException("site " + id + " does not exist"));
    }

    void createResource(ResourceStep step, JobContext ctx) {
        Site site = site(step.siteId());
        // "update state before the call returns": the site is declared active before anything exists
        store.inTransaction(c -> {
            if (sites.confirm(c, site.id(), "{\"naive\": true}", store.clock().sqlNow())) {
                leads.setStatus(c, site.leadId(), LeadStatus.CUSTOMER);
            }
            return null;
        });
        String key = resources.naturalKey(step.kind(), site.subdomain());
        var made = resources.get(step.kind()).create(new dev.converge.ledger.CreateRequest(key,
                resources.tags().tagFor(site.subject()), UUID.randomUUID().toString(), java.util.Map.of()));
        store.withConnection(c -> {
            Params p = Params.of().now(store.clock().sqlNow()).text("kind", step.kind()).text("key", key)
                    .text("leaf_id", made.leafId()).text("subject", site.subject());
            if (record.update(c, p) == 0) {
                recordNew.update(c, p);
            }
            return null;
        });
    }

    void welcome(SiteRef ref, JobContext ctx) {
        Site site = site(ref.siteId());
        Lead lead = leads.get(site.tenantId(), site.leadId()).orElseThrow();
        mailer.send(new WelcomeEmail(lead.email(), Long.toString(site.id()), site.subdomain(),
                receipts.expectedUrl(site.subdomain()), "naive-" + UUID.randomUUID()));
    }

    void confirm(SiteRef ref, JobContext ctx) {
        Site site = site(ref.siteId());
        store.inTransaction(c -> {
            events.record(c, site.tenantId(), site.id(), "site.active", receipts.expectedUrl(site.subdomain()));
            return null;
        });
        ctx.enqueue(dev.converge.queue.Job.of(jobs.welcome, ref)); // no unique key: naive
    }
}
