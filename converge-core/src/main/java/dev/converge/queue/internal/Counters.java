package dev.converge.queue.internal;

import dev.converge.queue.EngineStats;
import java.util.concurrent.atomic.LongAdder;

/** What this node's engine did, counted cheaply on hot paths. */
public final class Counters {
    final LongAdder leased = new LongAdder();
    final LongAdder succeeded = new LongAdder();
    final LongAdder failed = new LongAdder();
    final LongAdder retried = new LongAdder();
    final LongAdder cancelled = new LongAdder();
    final LongAdder leaseLost = new LongAdder();
    final LongAdder abandoned = new LongAdder();
    final LongAdder rescued = new LongAdder();

    public EngineStats snapshot() {
        return new EngineStats(leased.sum(), succeeded.sum(), failed.sum(), retried.sum(), cancelled.sum(),
                leaseLost.sum(), abandoned.sum(), rescued.sum());
    }
}
