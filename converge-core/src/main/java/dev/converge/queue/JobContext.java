package dev.converge.queue;

import dev.converge.lease.LeaseLost;
import java.time.Duration;
import java.util.Optional;

/** What a running handler knows about its delivery, and what it can ask of the engine. */
public interface JobContext {

    long jobId();

    /** 1 on the first delivery, 2 on the second, ... */
    int attempt();

    int maxAttempts();

    /** This delivery's fencing identity. */
    JobLease lease();

    Optional<Long> batchId();

    Optional<Long> flowId();

    /**
     * Whether the work this job belongs to has been cancelled: its batch was cancelled by a
     * failing sibling, or its flow is no longer running. Asks the store; call it right before a
     * side effect (R7).
     */
    boolean cancelled();

    /**
     * Throws {@link LeaseLost} if this delivery may no longer hold its job: the heartbeat could
     * not extend it in time, or the store says its epoch moved on. Cheap when the lease is
     * healthy; the ledger calls it before every external call.
     */
    void checkLease() throws LeaseLost;

    /** Asks the store whether the lease is held right now (one round trip). */
    void verifyLease() throws LeaseLost;

    /** Asks to run this job again after the delay, once the handler returns. */
    void release(Duration delay);
}
