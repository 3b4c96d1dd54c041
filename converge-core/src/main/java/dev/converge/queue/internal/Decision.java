package dev.converge.queue.internal;

import dev.converge.lease.JobLease;
import dev.converge.queue.JobState;

/**
 * What a delivery's outcome does to its job's row, decided once per outcome: it ends
 * ({@link Finish}) or runs again ({@link Retry}), fenced by the delivery's lease.
 */
public sealed interface Decision permits Decision.Finish, Decision.Retry {
    JobLease lease();

    String error();

    /** A terminal outcome for a running job, fenced by its lease. */
    record Finish(JobLease lease, JobState state, String error) implements Decision {
        public Finish {
            if (!state.isTerminal()) {
                throw new IllegalArgumentException("not a terminal state: " + state);
            }
        }
    }

    /**
     * A running job going back to available after {@code delayMs}, fenced by its lease.
     * {@code refundAttempt}: the delivery never started the handler (shutdown), so it does not
     * count as an attempt.
     */
    record Retry(JobLease lease, long delayMs, String error, boolean refundAttempt) implements Decision {
    }
}
