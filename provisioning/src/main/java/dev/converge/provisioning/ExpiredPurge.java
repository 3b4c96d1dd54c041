package dev.converge.provisioning;

import dev.converge.provisioning.approval.Approvals;
import dev.converge.provisioning.idempotency.IdempotencyStore;
import dev.converge.handler.JobContext;
import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import dev.converge.recurring.MissedSlots;
import dev.converge.recurring.Occurrence;
import dev.converge.recurring.RecurringJob;
import dev.converge.recurring.Schedule;
import dev.converge.store.Store;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service's own recurring job, {@code pv.purge-expired}: deletes the idempotency keys and the
 * approvals that have expired. Every node declares it, so the one holding the engine's recurring
 * claim enqueues it once per slot across the cluster, and one node that works the default queue
 * runs it (instead of a timer in every API process). A slot missed while no node ran is skipped:
 * the next run deletes everything that expired meanwhile.
 */
public final class ExpiredPurge {
    /** The recurring job's name and its job type's. */
    public static final String NAME = "pv.purge-expired";
    /** How often it runs unless {@code --purge-every} says otherwise. */
    public static final Duration DEFAULT_EVERY = Duration.ofMinutes(10);
    public static final JobType<Occurrence> TYPE = JobType.of(NAME, Occurrence.class)
            .withRetry(RetryPolicy.attempts(3).backoff(Duration.ofSeconds(10)).cappedAt(Duration.ofMinutes(1)))
            .withTimeout(Duration.ofMinutes(5));
    private static final Logger log = LoggerFactory.getLogger(ExpiredPurge.class);

    private final IdempotencyStore keys;
    private final Approvals approvals;

    ExpiredPurge(Store store) {
        this.keys = new IdempotencyStore(store);
        this.approvals = new Approvals(store);
    }

    /** The recurring job, every {@code every} (slots aligned on the epoch, the same on every node). */
    static RecurringJob<Occurrence> recurring(Duration every) {
        return RecurringJob.of(TYPE, Schedule.every(every)).withMissedSlots(MissedSlots.SKIP);
    }

    /** One run: both deletes are conditional on expiry, so a second run of the same slot deletes nothing more. */
    void run(Occurrence slot, JobContext ctx) {
        int expiredKeys = keys.purgeExpired();
        int expiredApprovals = approvals.purgeExpired();
        if (expiredKeys > 0 || expiredApprovals > 0) {
            log.info("purged {} expired idempotency keys and {} expired approvals (slot {})", expiredKeys,
                    expiredApprovals, slot.slot());
        }
    }
}
