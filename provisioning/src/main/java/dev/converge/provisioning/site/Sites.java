package dev.converge.provisioning.site;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.converge.Converge;
import dev.converge.flow.FlowEvent;
import dev.converge.flow.FlowRun;
import dev.converge.flow.FlowView;
import dev.converge.provisioning.flow.SiteFlows;
import dev.converge.provisioning.flow.SiteJobs;
import dev.converge.provisioning.lead.Leads;
import dev.converge.provisioning.validation.InvalidField;
import dev.converge.provisioning.validation.PublicId;
import dev.converge.store.Store;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * Requests, shows, lists and deletes sites, for one tenant at a time. A request is one
 * transaction: the site row, its claim on the subdomain (a primary key, so two requests cannot
 * both get it), its welcome-email token and its provisioning flow exist together or not at all.
 */
public final class Sites {
    /** What a site request came to. */
    public sealed interface RequestOutcome permits Created, SubdomainTaken {
    }

    /** A new site, provisioning. */
    public record Created(Site site, Receipt receipt) implements RequestOutcome {
    }

    /**
     * The subdomain belongs to another site. {@code sameLead} carries that site when it is this
     * tenant's and was requested for the same lead: the same request made before.
     */
    public record SubdomainTaken(String subdomain, Optional<Site> sameLead) implements RequestOutcome {
    }

    /** What a subscription request came to. */
    public sealed interface SubscribeOutcome permits Subscribed, NotSubscribable {
    }

    /** The site is subscribed; {@code justNow} is false when it already was (a repeated request). */
    public record Subscribed(Site site, boolean justNow) implements SubscribeOutcome {
    }

    /** The site's trial no longer runs: it expired, failed, or was deleted. */
    public record NotSubscribable(Site site) implements SubscribeOutcome {
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Store store;
    private final Converge engine;
    private final SiteStore sites;
    private final Leads leads;
    private final SiteFlows flows;
    private final Receipts receipts;
    private final java.time.Duration trial;
    private final dev.converge.provisioning.event.Events events;
    private final java.time.Duration subdomainHold;
    private final InFlightCap inFlightCap;
    private final java.util.concurrent.locks.ReentrantLock admitting = new java.util.concurrent.locks.ReentrantLock();
    private final java.util.concurrent.atomic.AtomicBoolean admitAgain = new java.util.concurrent.atomic.AtomicBoolean();

    /**
     * @param trial         how long a new site's trial lasts, or null for none (its sites never expire)
     * @param subdomainHold how long a deleted site's subdomain stays its tenant's
     * @param inFlightCap   provisionings the service runs at once, or 0 to follow the live workers' handler threads
     *                      ({@link InFlightCap}); a request beyond waits its turn, fairly between tenants
     *                      ({@link #admitQueued})
     */
    public Sites(Store store, Converge engine, SiteStore sites, Leads leads, SiteFlows flows, Receipts receipts,
            java.time.Duration trial, dev.converge.provisioning.event.Events events, java.time.Duration subdomainHold,
            int inFlightCap) {
        this.subdomainHold = subdomainHold;
        // the queue whose handlers run the steps: the node's own concurrency (Provisioning)
        this.inFlightCap = new InFlightCap(inFlightCap, "default", engine::nodes);
        this.store = store;
        this.engine = engine;
        this.sites = sites;
        this.leads = leads;
        this.flows = flows;
        this.receipts = receipts;
        this.trial = trial;
        this.events = events;
    }

    private static final class Taken extends RuntimeException {
        Taken() {
            super(null, null, false, false);
        }
    }

    public RequestOutcome request(long tenantId, SiteRequest req) {
        int cap = inFlightCap.get(); // before the transaction: it may read the fleet on a connection of its own
        try {
            return store.inTransaction(c -> {
                if (leads.get(c, tenantId, req.leadId()).isEmpty()) {
                    throw new InvalidField("lead_id", "does not name a lead of this tenant");
                }
                long id = sites.insert(c, tenantId, req.leadId(), req.subdomain(), req.template(), req.plan(),
                        store.clock().sqlNow(), trial);
                if (!sites.claimSubdomain(c, req.subdomain(), id, tenantId, store.clock().sqlNow(), subdomainHold)) {
                    throw new Taken(); // rolls the site row back with it
                }
                Site site = sites.get(c, id).orElseThrow();
                engine.tokens().add(c, SiteJobs.WELCOME_POOL, newToken(), site.subject());
                // room now and nobody waiting: provisioning starts with the request; else it waits its turn
                SiteStore.Admission room = sites.admission(c, cap, id);
                Long flowId = room.queued() || room.inFlight() >= cap ? null
                        : engine.flows().start(c, flows.provisioning(site.id(), site.subject())).flowId();
                Receipt receipt = receipts.of(site.withProvisionFlow(flowId, null));
                String receiptJson = json(receipt);
                sites.setProvisionFlow(c, id, flowId, receiptJson);
                return new Created(site.withProvisionFlow(flowId, receiptJson), receipt);
            });
        } catch (Taken t) {
            Optional<Site> holder = store.withConnection(c -> sites.subdomainHolder(c, req.subdomain(), tenantId,
                    store.clock().sqlNow(), subdomainHold)
                    .flatMap(id -> {
                        try {
                            return sites.get(c, tenantId, id);
                        } catch (java.sql.SQLException e) {
                            throw new IllegalStateException(e);
                        }
                    }));
            return new SubdomainTaken(req.subdomain(), holder.filter(s -> s.leadId() == req.leadId()));
        }
    }

    /**
     * How many site provisionings this node lets run at once now: the cap given, else 1.25 per handler thread
     * of the live workers, at most 100 ({@link InFlightCap}; the fleet is read at most every 5 s).
     */
    public int provisioningsAtOnce() {
        return inFlightCap.get();
    }

    /**
     * Starts the provisioning of queued sites while there is room: a tenant with fewer provisionings
     * in flight goes first, then the oldest request, so one tenant's flood waits behind its own
     * requests and not another tenant's. Each admission is its own transaction and conditional (a
     * site admitted, deleted or retried meanwhile is left alone), so runs on several nodes at once
     * admit each site once; the cap is soft by what they admit together in one moment. On one node,
     * one thread admits at a time: a call while another admits has that one look again.
     *
     * @return sites admitted by this call
     */
    public int admitQueued() {
        admitAgain.set(true);
        int admitted = 0;
        while (admitAgain.get() && admitting.tryLock()) {
            try {
                admitAgain.set(false);
                admitted += admitRounds();
            } finally {
                admitting.unlock();
            }
        }
        return admitted;
    }

    private int admitRounds() {
        int admitted = 0;
        for (int round = 0; round < 100; round++) {
            int cap = inFlightCap.get();
            List<Long> next = store.withConnection(c -> {
                SiteStore.Admission room = sites.admission(c, cap, 0);
                int free = cap - room.inFlight();
                return !room.queued() || free <= 0 ? List.<Long>of() : sites.nextQueued(c, free);
            });
            if (next.isEmpty()) {
                return admitted;
            }
            for (long id : next) {
                if (admit(id)) {
                    admitted++;
                }
            }
        }
        return admitted;
    }

    private boolean admit(long id) {
        try {
            return store.inTransaction(c -> {
                Optional<Site> site = sites.get(c, id);
                if (site.isEmpty() || site.get().state() != SiteState.PROVISIONING || site.get().provisionFlowId() != null) {
                    return false;
                }
                FlowRun run = engine.flows().start(c, flows.provisioning(id, site.get().subject()));
                if (!sites.admit(c, id, run.flowId())) {
                    throw new Taken(); // admitted by another node first: its flow stands, this one rolls back
                }
                return true;
            });
        } catch (Taken t) {
            return false;
        }
    }

    private static String newToken() {
        byte[] raw = new byte[18];
        RANDOM.nextBytes(raw);
        return "wel_" + Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
    }

    /**
     * The site that keeps the tenant from taking the subdomain now (its own or, within the hold,
     * another tenant's); empty when the subdomain is free for this tenant.
     */
    public Optional<Long> subdomainHolder(long tenantId, String subdomain) {
        return store.withConnection(c -> sites.subdomainHolder(c, subdomain, tenantId, store.clock().sqlNow(), subdomainHold));
    }

    public Optional<Site> get(long tenantId, long siteId) {
        return store.withConnection(c -> sites.get(c, tenantId, siteId));
    }

    /**
     * The database id of the tenant's site a reference names: a public id is looked up; a previous
     * release's database id is taken as it is (every read after this is scoped by tenant anyway).
     */
    public Optional<Long> idOf(long tenantId, PublicId.Ref ref) {
        if (!ref.isPublic()) {
            return Optional.of(ref.legacyId());
        }
        return store.withConnection(c -> sites.idOf(c, tenantId, ref.publicId()));
    }

    /** {@link Leads#idOf} for the tenant's lead a site request names. */
    public Optional<Long> leadIdOf(long tenantId, PublicId.Ref ref) {
        return leads.idOf(tenantId, ref);
    }

    /** The public id of the site with this database id, of whichever tenant. */
    public Optional<String> publicIdOf(long siteId) {
        return store.withConnection(c -> sites.get(c, siteId)).map(Site::publicId);
    }

    public Receipt receipt(Site site) {
        return receipts.of(site);
    }

    public Optional<SiteView> view(long tenantId, long siteId) {
        return get(tenantId, siteId).map(this::view);
    }

    public SiteView view(Site site) {
        List<SiteView.Resource> resources = engine.ledger().entriesOfSubject(site.subject()).stream()
                .map(e -> new SiteView.Resource(e.kind(), e.naturalKey(), e.state().sql(), e.leafId())).toList();
        List<Timed> history = new ArrayList<>();
        // every provisioning attempt, the first one's flow back from the latest's subject
        Long flowId = site.provisionFlowId();
        for (int attempt = 0; flowId != null && attempt < 50; attempt++) {
            Optional<dev.converge.flow.FlowView> flow = engine.flows().get(flowId);
            addHistory(history, SiteFlows.PROVISION, flowId);
            flowId = flow.map(f -> SiteFlows.retriedFlow(f.subject())).orElse(null);
        }
        addHistory(history, SiteFlows.TEARDOWN, site.teardownFlowId());
        for (dev.converge.provisioning.event.Events.Event e : events.forSite(site.id())) {
            if (RETRIED.equals(e.kind())) {
                history.add(new Timed(e.at(), new SiteView.HistoryEntry("retry-site", e.at().toString(),
                        SiteState.FAILED.sql(), SiteState.PROVISIONING.sql(), "retried " + e.detail())));
            }
        }
        history.sort(java.util.Comparator.comparing(Timed::at));
        SiteFailure failure = site.state() == SiteState.FAILED || site.state() == SiteState.NEEDS_ATTENTION
                ? SiteFailure.of(site.state(), site.failure()) : null;
        return new SiteView(site.publicId(), site.state().sql(), site.subdomain(), site.leadPublicId(),
                failure == null ? null : failure.message(), failure == null ? null : failure.code(), resources,
                history.stream().map(Timed::entry).toList(), receipts.of(site));
    }

    private record Timed(java.time.Instant at, SiteView.HistoryEntry entry) {
    }

    private void addHistory(List<Timed> out, String flow, Long flowId) {
        if (flowId == null) {
            return;
        }
        for (FlowEvent e : engine.flows().history(flowId)) {
            out.add(new Timed(e.at(), new SiteView.HistoryEntry(flow, e.at().toString(), e.from() == null ? null
                    : e.from().sql(), e.to().sql(), SiteFailure.shownReason(e.to().sql(), e.reason()))));
        }
    }

    /** A page of a tenant's sites, by id, after the cursor. */
    public List<Site> list(long tenantId, SiteState state, long after, int limit) {
        return store.withConnection(c -> sites.list(c, tenantId, state, after, limit));
    }

    /**
     * Starts tearing the site down; repeating it is harmless (the teardown flow is started once).
     * Empty if the tenant has no such site. A move of the site made meanwhile by its own flow (to
     * active, say) is read again and the delete goes on from the new state: the caller never sees
     * that race.
     */
    public Optional<Site> delete(long tenantId, long siteId) {
        for (int attempt = 1; ; attempt++) {
            Optional<Optional<Site>> done = store.inTransaction(c -> {
                Optional<Site> found = sites.get(c, tenantId, siteId);
                if (found.isEmpty()) {
                    return Optional.of(Optional.<Site>empty());
                }
                Site site = found.get();
                if (site.state() != SiteState.DELETING && site.state() != SiteState.DELETED) {
                    if (!sites.move(c, site.id(), site.state(), SiteState.DELETING, null, store.clock().sqlNow())) {
                        return Optional.<Optional<Site>>empty(); // it moved since the read: read it again
                    }
                    FlowRun run = engine.flows().start(c, flows.teardown(site.id(), site.subject(), site.teardownFlowId()));
                    sites.setTeardownFlow(c, site.id(), run.flowId());
                }
                return Optional.of(sites.get(c, site.id()));
            });
            if (done.isPresent()) {
                return done.get();
            }
            if (attempt >= 20) {
                // a site's state moves a handful of times in its life: this many misses in a row is a defect
                throw new IllegalStateException("site " + siteId + " kept changing state during the delete");
            }
        }
    }

    /**
     * Subscribes the site, if its trial still runs. One conditional write decides it against the
     * expiry ({@link SiteStore#subscribe}): whichever of the two comes first wins, the other
     * changes nothing. Repeating it is harmless. Empty if the tenant has no such site.
     */
    public Optional<SubscribeOutcome> subscribe(long tenantId, long siteId) {
        return store.inTransaction(c -> {
            Optional<Site> found = sites.get(c, tenantId, siteId);
            if (found.isEmpty()) {
                return Optional.empty();
            }
            if (found.get().subscription() == Subscription.SUBSCRIBED) {
                return Optional.of(new Subscribed(found.get(), false));
            }
            if (sites.subscribe(c, tenantId, siteId, store.clock().sqlNow())) {
                Site site = sites.get(c, siteId).orElseThrow();
                events.record(c, tenantId, siteId, "site.subscribed", site.subdomain());
                return Optional.of(new Subscribed(site, true));
            }
            Site now = sites.get(c, siteId).orElseThrow();
            return Optional.of(now.subscription() == Subscription.SUBSCRIBED ? new Subscribed(now, false)
                    : new NotSubscribable(now));
        });
    }

    /** What a person's retry of a failed site came to. */
    public record Retry(boolean applied, String detail) {
    }

    /**
     * Provisions a failed site again, for a person: once its failed attempt's compensation has
     * finished (so nothing of it is still being undone), the site moves failed -> provisioning by
     * one conditional write (two people retrying at once start one attempt) and a new provisioning
     * flow starts for it. Its resources keep their natural keys, so the ledger adopts or creates
     * each, never a second one. A trial it is still in restarts from now.
     */
    public Retry retryProvisioning(long tenantId, long siteId, String actor, String reason) {
        Site site = get(tenantId, siteId).orElseThrow(() -> new java.util.NoSuchElementException(
                "There is no site " + siteId + "."));
        if (site.state() != SiteState.FAILED) {
            return new Retry(false, "Site " + siteId + " is " + site.state().sql() + ", not failed: nothing was retried"
                    + " (someone may have retried it already).");
        }
        FlowView failed = site.provisionFlowId() == null ? null : engine.flows().get(site.provisionFlowId()).orElse(null);
        if (failed != null && failed.state() != dev.converge.flow.FlowState.FAILED) {
            return new Retry(false, "Site " + siteId + "'s failed provisioning is still " + failed.state().sql()
                    + ": retry once its compensation has finished.");
        }
        return store.inTransaction(c -> {
            // conditional on failed: the provisioning flow it names is the one read above
            if (!sites.retry(c, siteId, trial, store.clock().sqlNow())) {
                return new Retry(false, "Site " + siteId + " changed meanwhile: nothing was retried.");
            }
            FlowRun run = engine.flows().start(c, flows.provisioning(site.id(), site.subject(), site.provisionFlowId()));
            sites.setProvisionFlow(c, site.id(), run.flowId(), site.receipt());
            events.record(c, tenantId, siteId, RETRIED, "by " + actor + ": " + reason);
            return new Retry(true, "Site " + siteId + " is being provisioned again (flow " + run.flowId()
                    + "); the ledger adopts or creates each resource, never a second one.");
        });
    }

    /** The event of a person's retry of a failed site, shown in its history. */
    static final String RETRIED = "site.retried";

    /**
     * Takes down a site whose trial ran out without a subscription: the expiry's side of the
     * conditional write, then the same teardown flow as a delete, in one transaction. False if the
     * site was subscribed first, is not past its deadline, or is no longer up.
     */
    public boolean expire(long siteId) {
        return store.inTransaction(c -> {
            Optional<Site> found = sites.get(c, siteId);
            if (found.isEmpty() || !sites.expire(c, siteId, store.clock().sqlNow())) {
                return false;
            }
            Site site = found.get();
            FlowRun run = engine.flows().start(c, flows.teardown(site.id(), site.subject(), site.teardownFlowId()));
            sites.setTeardownFlow(c, site.id(), run.flowId());
            events.record(c, site.tenantId(), site.id(), "site.expired", site.subdomain());
            return true;
        });
    }

    private static String json(Object o) {
        try {
            return JSON.writeValueAsString(o);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("receipt does not serialize", e);
        }
    }
}
