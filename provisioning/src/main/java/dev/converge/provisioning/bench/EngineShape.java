package dev.converge.provisioning.bench;

import dev.converge.Converge;
import dev.converge.store.Store;

/** The engine the benchmark measures: no-op handlers on one queue, with the builder's defaults unless stated here. */
final class EngineShape {
    private EngineShape() {
    }

    static Converge.Builder worker(Store store, QueueBenchOptions o) {
        return Converge.builder(store)
                .handle(NoopJob.TYPE, (p, ctx) -> { })
                .queue(NoopJob.QUEUE, o.workers())
                .prefetch(o.prefetch());
    }

    static String describe(QueueBenchOptions o) {
        return "one queue, " + o.workers() + " handler threads, prefetch " + o.prefetch()
                + "; otherwise builder defaults (lease 30s, fetch limit 100)";
    }
}
