package dev.converge.provisioning;

import dev.converge.Converge;
import dev.converge.provisioning.flow.SiteJobs;
import dev.converge.provisioning.site.StepHandlers;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * What one process of the service does: serve only, or also work the queue (and how hard), take
 * part in the watchdog and the reaper; and what it changes in the engine it builds. The engine's
 * own settings (node id, lease, poll, maintenance intervals, crash plan) are not repeated here:
 * {@link #withEngine} hands the node's {@link Converge.Builder} to a customizer, after the
 * service's defaults.
 *
 * @param concurrency  handler threads; 0 for a node that only enqueues (an API-only node)
 * @param maintenance  whether this node takes part in the watchdog and the reaper
 * @param jobs         the job types (retry, timeout) of the site flows' steps
 * @param stepHandlers handlers registered in place of the site steps' create, welcome and confirm
 *                     handlers; null (the default, and always in the service) for the steps' own
 * @param purgeEvery   the slots of the recurring job that deletes expired idempotency keys and approvals
 *                     ({@link ExpiredPurge}); give every node the same, since whichever node holds the
 *                     recurring claim decides the slots by its own
 * @param removeOrphansEvery the slots of the recurring job that deletes the orphans of deleted sites
 *                     ({@link OrphanRemoval}); null for none (they are then only reported)
 * @param engine       applied to the engine's builder after the service's defaults
 */
public record NodeOptions(int concurrency, boolean maintenance, SiteJobs jobs, StepHandlers stepHandlers,
        Duration purgeEvery, Duration removeOrphansEvery, Consumer<Converge.Builder> engine) {
    /** How long a delivery holds its job without a heartbeat, unless the engine's customizer says otherwise. */
    public static final Duration LEASE = Duration.ofSeconds(30);
    /** The idle fetch wait. */
    public static final Duration POLL = Duration.ofSeconds(1);
    /** The watchdog's and the reaper's interval. */
    public static final Duration MAINTENANCE_EVERY = Duration.ofSeconds(5);
    /** The age after which the reaper resolves unconfirmed ledger entries and abandoned tokens. */
    public static final Duration REAP_AFTER = Duration.ofMinutes(5);

    public NodeOptions {
        if (concurrency < 0 || concurrency > 500) {
            throw new IllegalArgumentException("concurrency must be between 0 and 500");
        }
        Objects.requireNonNull(jobs, "jobs");
        Objects.requireNonNull(engine, "engine");
        if (purgeEvery == null || purgeEvery.compareTo(Duration.ofSeconds(1)) < 0 || purgeEvery.compareTo(Duration.ofDays(1)) > 0) {
            throw new IllegalArgumentException("--purge-every must be between 1s and 24h, was " + purgeEvery);
        }
        if (removeOrphansEvery != null && (removeOrphansEvery.compareTo(Duration.ofSeconds(1)) < 0
                || removeOrphansEvery.compareTo(Duration.ofDays(1)) > 0)) {
            throw new IllegalArgumentException("--remove-orphans-every must be between 1s and 24h, was " + removeOrphansEvery);
        }
    }

    /** A full node: serves and works with production timings. */
    public static NodeOptions defaults() {
        return new NodeOptions(16, true, SiteJobs.defaults(), null, ExpiredPurge.DEFAULT_EVERY, OrphanRemoval.DEFAULT_EVERY,
                b -> { });
    }

    /**
     * The service's defaults on the engine's builder, before {@link #engine()}: the lease, the poll
     * and, with maintenance, the watchdog and the reaper.
     */
    void applyDefaults(Converge.Builder b) {
        b.leases(l -> l.duration(LEASE)).queues(q -> q.poll(POLL));
        if (maintenance) {
            b.maintenance(m -> m.watchdog(MAINTENANCE_EVERY)).ledger(g -> g.reaper(MAINTENANCE_EVERY, REAP_AFTER));
        }
    }

    public NodeOptions withConcurrency(int n) {
        return new NodeOptions(n, maintenance, jobs, stepHandlers, purgeEvery, removeOrphansEvery, engine);
    }

    /** A node that leaves the watchdog and the reaper to the others. */
    public NodeOptions withoutMaintenance() {
        return new NodeOptions(concurrency, false, jobs, stepHandlers, purgeEvery, removeOrphansEvery, engine);
    }

    public NodeOptions withJobs(SiteJobs j) {
        return new NodeOptions(concurrency, maintenance, j, stepHandlers, purgeEvery, removeOrphansEvery, engine);
    }

    /**
     * Handlers registered in place of the site steps' create, welcome and confirm handlers; null
     * (the default, and always in the service) for the steps' own. The proof's naive steps come in here.
     */
    public NodeOptions withStepHandlers(StepHandlers handlers) {
        return new NodeOptions(concurrency, maintenance, jobs, handlers, purgeEvery, removeOrphansEvery, engine);
    }

    /** How often the recurring job that deletes expired idempotency keys and approvals runs (default 10 minutes). */
    public NodeOptions withPurgeEvery(Duration every) {
        return new NodeOptions(concurrency, maintenance, jobs, stepHandlers, every, removeOrphansEvery, engine);
    }

    /**
     * How often the recurring job that deletes the orphans of deleted sites runs (default 10
     * minutes); null for never, leaving them to {@code converge reconcile --delete}. Give every node
     * the same.
     */
    public NodeOptions withRemoveOrphansEvery(Duration every) {
        return new NodeOptions(concurrency, maintenance, jobs, stepHandlers, purgeEvery, every, engine);
    }

    /**
     * Also applies {@code customizer} to the engine's builder, after the service's defaults and the
     * customizers given before: the node id, the lease, the poll, the watchdog's and the reaper's
     * intervals, a crash plan.
     */
    public NodeOptions withEngine(Consumer<Converge.Builder> customizer) {
        Objects.requireNonNull(customizer, "customizer");
        return new NodeOptions(concurrency, maintenance, jobs, stepHandlers, purgeEvery, removeOrphansEvery, engine.andThen(customizer));
    }
}
