package dev.converge.queue.internal;

import dev.converge.lease.JobLease;
import java.time.Instant;

/** A job as handed to a worker: leased under {@link #epoch()} until the lease expires or is extended. */
public record LeasedJob(
        long id,
        String queue,
        String kind,
        String payload,
        long epoch,
        int attempt,
        int maxAttempts,
        Long timeoutMs,
        Long batchId,
        Long chainId,
        Integer chainPos,
        Long flowId,
        Instant createdAt,
        Instant runAt) {

    public JobLease lease() {
        return new JobLease(id, epoch);
    }

    public boolean attemptsLeft() {
        return attempt < maxAttempts;
    }
}
