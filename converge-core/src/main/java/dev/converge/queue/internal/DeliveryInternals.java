package dev.converge.queue.internal;

import dev.converge.queue.LeasedJob;

/**
 * What the engine's own packages (ledger, tokens, flows) may see of a running delivery beyond
 * the public {@link dev.converge.queue.JobContext}. Not for handlers.
 */
public interface DeliveryInternals {
    EngineRuntime runtime();

    LeasedJob job();

    /**
     * Like {@code release}, but the delivery does not count as an attempt: the job is waiting on
     * something else (the engine's own compensation waiting for a live step), not failing.
     */
    void postpone(java.time.Duration delay);
}
