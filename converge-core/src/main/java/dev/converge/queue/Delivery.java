package dev.converge.queue;

import dev.converge.crash.CrashPoint;
import dev.converge.lease.JobLease;
import dev.converge.lease.LeaseLost;
import java.time.Duration;
import java.util.Optional;

/**
 * One delivery of a job, as the engine's services see it: which job, under which lease, whether
 * its work was cancelled. The ledger, flows and tokens take a delivery so that their writes are
 * fenced by its lease; a handler passes its {@code JobContext}, which is one.
 */
public interface Delivery {

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

    /**
     * Announces that this delivery reached one of the named crash points in the handler's own
     * code, so the crash-point explorer can crash it there. Does nothing in production.
     */
    default void reached(CrashPoint point) {
    }
}
