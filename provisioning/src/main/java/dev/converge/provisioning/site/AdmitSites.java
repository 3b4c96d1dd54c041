package dev.converge.provisioning.site;

import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import dev.converge.recurring.MissedSlots;
import dev.converge.recurring.Occurrence;
import dev.converge.recurring.RecurringJob;
import dev.converge.recurring.Schedule;
import java.time.Duration;

/**
 * The recurring job {@code pv.admit-sites}: starts the provisioning of sites that wait their turn
 * ({@link Sites#admitQueued}). A provisioning that ends starts the next at once on the node where it
 * ended; this job is the net under that, for a node that died in between. A missed slot is skipped.
 */
public final class AdmitSites {
    public static final String NAME = "pv.admit-sites";
    public static final JobType<Occurrence> TYPE = JobType.of(NAME, Occurrence.class)
            .withRetry(RetryPolicy.attempts(3).backoff(Duration.ofSeconds(1)).cappedAt(Duration.ofSeconds(10)))
            .withTimeout(Duration.ofMinutes(1));
    /** How often it runs. */
    public static final Duration EVERY = Duration.ofSeconds(2);

    private AdmitSites() {
    }

    public static RecurringJob<Occurrence> recurring() {
        return RecurringJob.of(TYPE, Schedule.every(EVERY)).withMissedSlots(MissedSlots.SKIP);
    }
}
