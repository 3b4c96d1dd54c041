package dev.converge.provisioning.site;

import static dev.converge.provisioning.leaf.LeafThrottled.releasingWhenThrottled;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.converge.Converge;
import dev.converge.flow.FlowState;
import dev.converge.flow.FlowView;
import dev.converge.ledger.LeafCall;
import dev.converge.ledger.LedgerEntry;
import dev.converge.ledger.LedgerState;
import dev.converge.ledger.RepetitionSafety;
import dev.converge.provisioning.config.ProvisioningConfig;
import dev.converge.provisioning.event.Events;
import dev.converge.provisioning.flow.SiteJobs.ResourceStep;
import dev.converge.provisioning.flow.SiteJobs.SiteRef;
import dev.converge.provisioning.flow.SiteJobs;
import dev.converge.provisioning.flow.SiteResources;
import dev.converge.provisioning.lead.Lead;
import dev.converge.provisioning.lead.LeadStatus;
import dev.converge.provisioning.lead.Leads;
import dev.converge.provisioning.mail.SmtpMailer;
import dev.converge.queue.Job;
import dev.converge.handler.JobContext;
import dev.converge.queue.NonRetryableException;
import dev.converge.store.Store;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The handlers of the site flows. Every external effect goes through the ledger (resources,
 * deploy) or a token (the welcome email); every state change of the site is a conditional update,
 * so a step delivered twice, or late, changes nothing twice.
 */
public final class SiteSteps {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(SiteSteps.class);
    /** Logging-context keys of a site step's delivery, beside the engine's job and flow ids. */
    public static final String SITE_ID = "site_id";
    public static final String TENANT_ID = "tenant_id";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Store store;
    private final SiteStore sites;
    private final Leads leads;
    private final Events events;
    private final SiteResources resources;
    private final SmtpMailer mailer;
    private final ProvisioningConfig config;
    private final Receipts receipts;
    private final Runnable settled;
    private StepHandlers replacement;
    private SiteJobs jobs;

    /** @param settled run when a site's provisioning ended (active, failed): the next waiting site may start */
    public SiteSteps(Store store, SiteStore sites, Leads leads, Events events, SiteResources resources,
            ProvisioningConfig config, Receipts receipts, Runnable settled) {
        this.settled = settled;
        this.store = store;
        this.sites = sites;
        this.leads = leads;
        this.events = events;
        this.resources = resources;
        this.mailer = new SmtpMailer(config.smtp());
        this.config = config;
        this.receipts = receipts;
    }

    /**
     * Registers every handler on the engine being built; a node that works no queue (an API server
     * without workers) only declares the job types it enqueues.
     */
    public Converge.Builder register(Converge.Builder b, SiteJobs jobs, boolean works) {
        this.jobs = jobs;
        resources.all().forEach(b::resource);
        if (!works) {
            return b.declare(jobs.createResource).declare(jobs.deploy).declare(jobs.welcome).declare(jobs.confirm)
                    .declare(jobs.reportFailure).declare(jobs.teardown).declare(jobs.reportTeardownFailure)
                    .declare(jobs.trialReminder);
        }
        if (replacement != null) {
            replacement.register(b, jobs, new StepHandlers.Parts(store, sites, leads, events, resources, mailer, receipts));
        } else {
            b.handle(jobs.createResource, releasingWhenThrottled(this::createResource)).handle(jobs.welcome, this::welcome)
                    .handle(jobs.confirm, this::confirm);
        }
        return b.handle(jobs.deploy, releasingWhenThrottled(this::deploy))
                .handle(jobs.reportFailure, this::reportFailure)
                .handle(jobs.teardown, releasingWhenThrottled(this::teardown))
                .handle(jobs.reportTeardownFailure, this::reportTeardownFailure)
                .handle(jobs.trialReminder, this::trialReminder);
    }

    /** The create, welcome and confirm handlers to register instead of these steps' own; null for the own. */
    public SiteSteps replacedBy(StepHandlers handlers) {
        this.replacement = handlers;
        return this;
    }

    /**
     * The step's site; from here on every line the delivery logs carries the site and its tenant
     * (the engine puts the thread's logging context back when the delivery ends).
     */
    private Site site(long id) {
        org.slf4j.MDC.put(SITE_ID, Long.toString(id));
        Site site = store.withConnection(c -> sites.get(c, id))
                .orElseThrow(() -> new NonRetryableException("site " + id + " does not exist"));
        org.slf4j.MDC.put(TENANT_ID, Long.toString(site.tenantId()));
        return site;
    }

    void createResource(ResourceStep step, JobContext ctx) {
        Site site = site(step.siteId());
        ctx.ledger().ensure(resources.get(step.kind()), resources.naturalKey(step.kind(), site.subdomain()),
                site.subject(), Map.of());
    }

    void deploy(SiteRef ref, JobContext ctx) {
        Site site = site(ref.siteId());
        String key = resources.naturalKey(SiteResources.HOSTING, site.subdomain());
        LedgerEntry hosting = ctx.ledger().entry(SiteResources.HOSTING, key)
                .filter(e -> e.state() == LedgerState.CONFIRMED)
                .orElseThrow(() -> new NonRetryableException("no confirmed hosting site for " + key));
        ctx.ledger().call(LeafCall.of("deploy", RepetitionSafety.NATURALLY_IDEMPOTENT, idempotencyKey -> {
            resources.deploy(hosting.leafId());
            return null;
        }));
    }

    /**
     * The outbox step queued by {@link #confirm}: the email goes out only for a site that is
     * active now. A site deleted after its confirmation (or one never confirmed) gets none.
     */
    void welcome(SiteRef ref, JobContext ctx) {
        Site site = site(ref.siteId());
        if (site.state() != SiteState.ACTIVE) {
            log.info("site {} is {}: its welcome email is not sent", site.id(), site.state().sql());
            return;
        }
        Lead lead = leads.get(site.tenantId(), site.leadId()).orElseThrow();
        ctx.tokens().useOnce(SiteJobs.WELCOME_POOL, site.subject(), SiteMail.welcome(mailer, config.mailLookup(),
                lead.email(), Long.toString(site.id()), site.subdomain(), receipts.expectedUrl(site.subdomain())));
    }

    /**
     * Runs once the provisioning flow has durably succeeded: only now is the site active and the
     * lead a customer. Then, and only while the site is still active, it queues the welcome email
     * (once per site, by its unique key): a delivery that dies after the confirmation queues it on
     * its retry, and a site deleted in between gets none.
     */
    void confirm(SiteRef ref, JobContext ctx) throws Exception {
        Site site = site(ref.siteId());
        Map<String, Object> confirmation = new LinkedHashMap<>();
        confirmation.put("url", receipts.expectedUrl(site.subdomain()));
        confirmation.put("resources", ctx.ledger().entriesOfSubject(site.subject()).stream()
                .filter(e -> e.state() == LedgerState.CONFIRMED)
                .map(e -> Map.of("kind", e.kind(), "natural_key", e.naturalKey(), "leaf_id", e.leafId())).toList());
        String json = JSON.writeValueAsString(confirmation);
        boolean confirmed = store.inTransaction(c -> {
            if (sites.confirm(c, site.id(), json, store.clock().sqlNow())) {
                leads.setStatus(c, site.leadId(), LeadStatus.CUSTOMER);
                events.record(c, site.tenantId(), site.id(), "site.active", receipts.expectedUrl(site.subdomain()));
                return true;
            }
            return false;
        });
        if (confirmed) {
            admitNext();
        }
        if (site(site.id()).state() == SiteState.ACTIVE) {
            ctx.enqueue(Job.of(jobs.welcome, ref).uniqueKey(welcomeKey(site.id())));
        }
    }

    /**
     * A trial's reminder, queued once per site by {@link TrialDeadlines}: sent only while the trial
     * still runs on a live site (a site subscribed, expired or deleted meanwhile gets none), at most
     * once by its token however often the job is delivered.
     */
    void trialReminder(SiteRef ref, JobContext ctx) {
        Site site = site(ref.siteId());
        if (site.state() == SiteState.PROVISIONING && site.subscription() == Subscription.TRIAL) {
            ctx.release(Duration.ofSeconds(2)); // not live yet: remind once it is (or skip if it fails)
            return;
        }
        if (site.subscription() != Subscription.TRIAL || site.state() != SiteState.ACTIVE || site.trialEndsAt() == null) {
            log.info("site {} is {} ({}): its trial reminder is not sent", site.id(), site.state().sql(),
                    site.subscription().sql());
            return;
        }
        Lead lead = leads.get(site.tenantId(), site.leadId()).orElseThrow();
        String account = receipts.of(site).accountUrl();
        ctx.tokens().useOnce(SiteJobs.REMINDER_POOL, site.subject(), SiteMail.trialReminder(mailer,
                config.mailLookup(), lead.email(), Long.toString(site.id()), site.subdomain(),
                receipts.expectedUrl(site.subdomain()),
                site.trialEndsAt().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString(), account));
    }

    static String welcomeKey(long siteId) {
        return "site:" + siteId + ":welcome";
    }

    /** Runs after the failed provisioning flow's compensation: reports the failure, never before. */
    void reportFailure(SiteRef ref, JobContext ctx) {
        Site site = site(ref.siteId());
        FlowView flow = ctx.flows().get(site.provisionFlowId()).orElseThrow();
        boolean attention = flow.state() == FlowState.NEEDS_ATTENTION;
        String why = attention && flow.attention() != null ? flow.attention() : flow.failureReason();
        // the whole reason for operators; tenants see its code and a safe message (SiteFailure)
        log.warn("site {} of tenant {} {}: {}", site.id(), site.tenantId(), attention ? "needs attention" : "failed", why);
        // after a person's retry the site already needs attention: its flow's end is reported again
        SiteState from = site.state() == SiteState.NEEDS_ATTENTION && site.teardownFlowId() == null
                ? SiteState.NEEDS_ATTENTION : SiteState.PROVISIONING;
        SiteState to = attention ? SiteState.NEEDS_ATTENTION : SiteState.FAILED;
        if (from == to) {
            return;
        }
        boolean moved = store.inTransaction(c -> {
            if (sites.move(c, site.id(), from, to, why, store.clock().sqlNow())) {
                events.record(c, site.tenantId(), site.id(), attention ? "site.needs_attention" : "site.failed", why);
                return true;
            }
            return false;
        });
        if (moved) {
            admitNext();
        }
    }

    /** A provisioning ended: the next waiting site starts now (if this fails, the recurring admission does). */
    private void admitNext() {
        try {
            settled.run();
        } catch (RuntimeException e) {
            log.warn("the next waiting site was not admitted now ({}); the recurring admission will", e.toString());
        }
    }

    void teardown(SiteRef ref, JobContext ctx) {
        Site site = site(ref.siteId());
        if (site.provisionFlowId() != null) {
            FlowView provisioning = ctx.flows().get(site.provisionFlowId()).orElseThrow();
            if (provisioning.state() == FlowState.RUNNING) {
                ctx.flows().fail(provisioning.id(), "the site was deleted while it was being provisioned");
                ctx.release(Duration.ofMillis(200));
                return;
            }
            if (provisioning.state() == FlowState.COMPENSATING) {
                ctx.release(Duration.ofMillis(300)); // let its compensation finish first
                return;
            }
        }
        if (!ctx.ledger().teardownSubject(site.subject())) {
            return; // a create is still in flight: come back when it settled
        }
        List<LedgerEntry> left = ctx.ledger().entriesOfSubject(site.subject()).stream()
                .filter(e -> e.state() != LedgerState.DELETED && e.state() != LedgerState.RELEASED).toList();
        if (!left.isEmpty()) {
            throw new IllegalStateException("teardown left " + left.size() + " resource(s) unsettled; retrying");
        }
        store.inTransaction(c -> {
            if (sites.move(c, site.id(), SiteState.DELETING, SiteState.DELETED, null, store.clock().sqlNow())) {
                sites.freeSubdomain(c, site.subdomain(), site.id(), store.clock().sqlNow());
                if (sites.activeOfLead(c, site.leadId()) == 0) {
                    leads.setStatus(c, site.leadId(), LeadStatus.LEAD);
                }
                events.record(c, site.tenantId(), site.id(), "site.deleted", site.subdomain());
            }
            return null;
        });
    }

    void reportTeardownFailure(SiteRef ref, JobContext ctx) {
        Site site = site(ref.siteId());
        store.inTransaction(c -> {
            if (sites.move(c, site.id(), SiteState.DELETING, SiteState.NEEDS_ATTENTION, "teardown could not finish",
                    store.clock().sqlNow())) {
                // the site is not active and never will be again (a person finishes its teardown): as for a deleted one
                if (sites.activeOfLead(c, site.leadId()) == 0) {
                    leads.setStatus(c, site.leadId(), LeadStatus.LEAD);
                }
                events.record(c, site.tenantId(), site.id(), "site.needs_attention", "teardown could not finish");
            }
            return null;
        });
    }
}
