package dev.converge.provisioning;

import dev.converge.handler.JobContext;
import dev.converge.ledger.LeafResource;
import dev.converge.ledger.Ledger;
import dev.converge.ledger.LedgerEntry;
import dev.converge.ledger.ResourceType;
import dev.converge.provisioning.flow.SiteResources;
import dev.converge.provisioning.site.Site;
import dev.converge.provisioning.site.SiteState;
import dev.converge.provisioning.site.SiteStore;
import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import dev.converge.recurring.MissedSlots;
import dev.converge.recurring.Occurrence;
import dev.converge.recurring.RecurringJob;
import dev.converge.recurring.Schedule;
import dev.converge.store.Store;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service's recurring job {@code pv.remove-orphans}: deletes at the leaves the resources no
 * ledger entry owns that carry the exact tag of one of this store's sites that is deleted.
 *
 * <p>Such a resource is what a stale delivery leaves when its create lands after the site's
 * teardown and its process dies before its own cleanup: nothing will ever adopt it (a deleted
 * site is never provisioned again, and a delivery that lost its lease cannot claim its key), so
 * removing it is what the teardown would have done. Everything else the orphan scan finds stays
 * for an operator ({@code converge reconcile}, {@code GET /v1/orphans}): resources of sites still
 * alive or failed (a retry may adopt them), resources of another installation, untagged ones.
 * Right before each delete the ledger is read again for the resource's natural key; an entry
 * that is claimed, unresolved, confirmed or being deleted owns it, and it is left alone. Deletes
 * are idempotent at every leaf, so two runs of the same slot do no harm.
 */
public final class OrphanRemoval {
    /** The recurring job's name and its job type's. */
    public static final String NAME = "pv.remove-orphans";
    /** How often it runs unless {@code --remove-orphans-every} says otherwise. */
    public static final Duration DEFAULT_EVERY = Duration.ofMinutes(10);
    public static final JobType<Occurrence> TYPE = JobType.of(NAME, Occurrence.class)
            .withRetry(RetryPolicy.attempts(3).backoff(Duration.ofSeconds(10)).cappedAt(Duration.ofMinutes(1)))
            .withTimeout(Duration.ofMinutes(10));
    private static final Logger log = LoggerFactory.getLogger(OrphanRemoval.class);

    private final Store store;
    private final SiteStore sites;
    private final SiteResources resources;
    private final Supplier<Ledger> ledger;
    private final MeterRegistry meters;

    OrphanRemoval(Store store, SiteResources resources, Supplier<Ledger> ledger, MeterRegistry meters) {
        this.store = store;
        this.sites = new SiteStore(store);
        this.resources = resources;
        this.ledger = ledger;
        this.meters = meters;
        // registered at zero: a counter that first appears at 1 has no increase to alert on, so the first removal
        // after a node starts would go unseen by `increase(converge_orphans_removed_total[...])`
        for (ResourceType type : resources.all()) {
            removedCounter(type);
        }
    }

    private io.micrometer.core.instrument.Counter removedCounter(ResourceType type) {
        return io.micrometer.core.instrument.Counter.builder("converge_orphans_removed").tag("kind", type.kind())
                .description("orphans of deleted sites this node removed at the leaves (pv.remove-orphans)")
                .register(meters);
    }

    /** The recurring job, every {@code every}; a slot missed while no node ran is skipped (the next run sees the same). */
    static RecurringJob<Occurrence> recurring(Duration every) {
        return RecurringJob.of(TYPE, Schedule.every(every)).withMissedSlots(MissedSlots.SKIP);
    }

    /** One run; throws (and is retried) when a leaf could not be listed or an orphan not deleted. */
    void run(Occurrence slot, JobContext ctx) {
        int removed = removeNow();
        if (removed > 0) {
            log.info("removed {} orphan(s) of deleted sites (slot {})", removed, slot.slot());
        }
    }

    /**
     * One pass over every leaf; returns how many orphans it deleted. A leaf that cannot be listed
     * or a delete that fails is logged, the other leaves and orphans are still done, and then the
     * pass fails, so the job is retried and a succeeded run means every leaf was seen whole.
     */
    int removeNow() {
        Ledger l = ledger.get();
        int removed = 0;
        java.util.List<String> incomplete = new java.util.ArrayList<>();
        for (ResourceType type : resources.all()) {
            java.util.List<LeafResource> found;
            try {
                found = l.orphans(type);
            } catch (RuntimeException e) {
                log.warn("orphans of {} could not be listed: {}", type.kind(), e.toString());
                incomplete.add(type.kind() + " not listed");
                continue;
            }
            for (LeafResource r : found) {
                long siteId = Site.idInTag(l.tags(), r.tag());
                if (siteId <= 0 || !deleted(siteId) || owned(l, type, r)) {
                    continue;
                }
                try {
                    type.delete(r);
                } catch (RuntimeException e) {
                    log.warn("orphan {} {} (natural key {}) of deleted site {} could not be deleted: {}", type.kind(),
                            r.leafId(), r.naturalKey(), siteId, e.toString());
                    incomplete.add(type.kind() + " " + r.leafId() + " not deleted");
                    continue;
                }
                removed++;
                removedCounter(type).increment();
                // a warning, as the ledger's own cleanup of a stale create: a delivery outlived its lease, and the
                // service deleted something at a leaf; both are for an operator to see at the default level
                log.warn("orphan {} {} (natural key {}) of deleted site {} removed at the leaf (a stale delivery's create "
                        + "that landed after the teardown)", type.kind(), r.leafId(), r.naturalKey(), siteId);
            }
        }
        if (!incomplete.isEmpty()) {
            throw new IllegalStateException("orphan removal incomplete (" + removed + " removed): "
                    + String.join(", ", incomplete) + "; the job is retried");
        }
        return removed;
    }

    private boolean deleted(long siteId) {
        return store.withConnection(c -> sites.get(c, siteId)).map(s -> s.state() == SiteState.DELETED).orElse(false);
    }

    /** Whether an entry of the ledger, read now, owns this resource's natural key. */
    private static boolean owned(Ledger l, ResourceType type, LeafResource r) {
        Optional<LedgerEntry> e = l.entry(type.kind(), r.naturalKey());
        return e.isPresent() && switch (e.get().state()) {
            case CLAIMED, UNCERTAIN, CONFIRMED, DELETING -> true;
            case DELETED, RELEASED -> false;
        };
    }
}
