package dev.converge.proof.bench;

import dev.converge.Converge;
import dev.converge.store.Store;

/** The engine the benchmark measures: no-op handlers on one queue, with the builder's defaults unless told otherwise. */
final class EngineShape {
    private EngineShape() {
    }

    static Converge.Builder worker(Store store, QueueBenchOptions o) {
        Converge.Builder b = Converge.builder(store)
                .handle(NoopJob.TYPE, (p, ctx) -> { })
                .queue(NoopJob.QUEUE, o.workers());
        if (o.prefetch() >= 0) {
            b.queues(q -> q.prefetch(o.prefetch()));
        }
        if (o.fetchLimit() > 0) {
            b.queues(q -> q.fetchLimit(o.fetchLimit()));
        }
        return b;
    }

    static String describe(QueueBenchOptions o) {
        return "one queue, " + o.workers() + " handler threads, prefetch "
                + (o.prefetch() >= 0 ? o.prefetch() : "default") + ", fetch limit "
                + (o.fetchLimit() > 0 ? o.fetchLimit() : "default") + "; otherwise builder defaults; "
                + (o.vacuum() ? "VACUUM ANALYZE before every processing run (engine and reference)"
                        : "no VACUUM/ANALYZE (as a user runs it)")
                + (o.finishedRows() > 0 ? "; " + o.finishedRows() + " finished jobs in the table during every processing run"
                        : "");
    }
}
