package dev.converge.queue.internal;

import dev.converge.queue.LeasedJob;

/**
 * What the engine's own packages (ledger, tokens, flows) may see of a running delivery beyond
 * the public {@link dev.converge.queue.JobContext}. Not for handlers.
 */
public interface DeliveryInternals {
    EngineRuntime runtime();

    LeasedJob job();
}
