package dev.converge.provisioning;

import dev.converge.crash.CrashPlan;
import dev.converge.provisioning.flow.SiteJobs;
import dev.converge.provisioning.site.StepHandlers;
import java.time.Duration;
import java.util.Objects;

/**
 * What one process of the service does: serve only, or also work the queue (and how hard), run
 * the watchdog and the reaper; and its engine timings.
 *
 * @param concurrency 0 for a node that only enqueues (an API-only node)
 * @param purgeEvery  the slots of the recurring job that deletes expired idempotency keys and approvals
 *                    ({@link ExpiredPurge}); give every node the same, since whichever node holds the
 *                    recurring claim decides the slots by its own
 */
public record NodeOptions(String nodeId, int concurrency, boolean watchdog, boolean reaper, Duration lease,
        Duration poll, Duration maintenanceEvery, Duration reapOlderThan, SiteJobs jobs, CrashPlan crashPlan,
        StepHandlers stepHandlers, Duration purgeEvery) {

    public NodeOptions {
        if (concurrency < 0 || concurrency > 500) {
            throw new IllegalArgumentException("concurrency must be between 0 and 500");
        }
        Objects.requireNonNull(lease, "lease");
        Objects.requireNonNull(poll, "poll");
        Objects.requireNonNull(maintenanceEvery, "maintenanceEvery");
        Objects.requireNonNull(reapOlderThan, "reapOlderThan");
        Objects.requireNonNull(jobs, "jobs");
        Objects.requireNonNull(crashPlan, "crashPlan");
        if (purgeEvery == null || purgeEvery.compareTo(Duration.ofSeconds(1)) < 0 || purgeEvery.compareTo(Duration.ofDays(1)) > 0) {
            throw new IllegalArgumentException("--purge-every must be between 1s and 24h, was " + purgeEvery);
        }
    }

    /** A full node: serves and works with production timings. */
    public static NodeOptions defaults() {
        return new NodeOptions(null, 16, true, true, Duration.ofSeconds(30), Duration.ofSeconds(1), Duration.ofSeconds(5),
                Duration.ofMinutes(5), SiteJobs.defaults(), CrashPlan.NONE, null, ExpiredPurge.DEFAULT_EVERY);
    }

    public NodeOptions withConcurrency(int n) {
        return new NodeOptions(nodeId, n, watchdog, reaper, lease, poll, maintenanceEvery, reapOlderThan,
                jobs, crashPlan, stepHandlers, purgeEvery);
    }

    public NodeOptions withNodeId(String id) {
        return new NodeOptions(id, concurrency, watchdog, reaper, lease, poll, maintenanceEvery, reapOlderThan,
                jobs, crashPlan, stepHandlers, purgeEvery);
    }

    public NodeOptions withMaintenance(boolean watchdogOn, boolean reaperOn) {
        return new NodeOptions(nodeId, concurrency, watchdogOn, reaperOn, lease, poll, maintenanceEvery, reapOlderThan, jobs,
                crashPlan, stepHandlers, purgeEvery);
    }

    public NodeOptions withTimings(Duration leaseTime, Duration pollEvery, Duration maintenance, Duration reapAfter) {
        return new NodeOptions(nodeId, concurrency, watchdog, reaper, leaseTime, pollEvery, maintenance, reapAfter, jobs,
                crashPlan, stepHandlers, purgeEvery);
    }

    public NodeOptions withJobs(SiteJobs j) {
        return new NodeOptions(nodeId, concurrency, watchdog, reaper, lease, poll, maintenanceEvery, reapOlderThan,
                j, crashPlan, stepHandlers, purgeEvery);
    }

    /**
     * Handlers registered in place of the site steps' create, welcome and confirm handlers; null
     * (the default, and always in the service) for the steps' own. The proof's naive steps come in here.
     */
    public NodeOptions withStepHandlers(StepHandlers handlers) {
        return new NodeOptions(nodeId, concurrency, watchdog, reaper, lease, poll, maintenanceEvery, reapOlderThan, jobs,
                crashPlan, handlers, purgeEvery);
    }

    /** How often the recurring job that deletes expired idempotency keys and approvals runs (default 10 minutes). */
    public NodeOptions withPurgeEvery(Duration every) {
        return new NodeOptions(nodeId, concurrency, watchdog, reaper, lease, poll, maintenanceEvery, reapOlderThan, jobs,
                crashPlan, stepHandlers, every);
    }

    public NodeOptions withCrashPlan(CrashPlan plan) {
        return new NodeOptions(nodeId, concurrency, watchdog, reaper, lease, poll, maintenanceEvery, reapOlderThan,
                jobs, plan, stepHandlers, purgeEvery);
    }
}
