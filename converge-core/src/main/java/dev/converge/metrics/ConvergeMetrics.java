package dev.converge.metrics;

import java.time.Duration;

/**
 * The engine's meters in a Micrometer registry (docs/operations.md lists them), bound by the
 * builder's {@code meterRegistry(...)} and handed out by {@code Converge#metrics()}. Event meters
 * (enqueued, completed, run and wait time, rescues, retention) count what this node did; the
 * gauges of rows by state (queue depth, flows, compensations, ledger entries, orphans) are
 * sampled from the store every {@code metricsSample} by one background thread, never on a scrape,
 * and read only live rows or tables that retention keeps bounded (except the ledger, which is
 * counted whole: it is never deleted).
 */
public interface ConvergeMetrics extends AutoCloseable {
    /** How often the gauges are sampled unless the builder says otherwise. */
    Duration DEFAULT_SAMPLE = Duration.ofSeconds(15);

    /**
     * The buckets of a handler's run time, a leaf call (and, in the service, every other timer):
     * explicit and few, so a histogram adds up across nodes and a job type costs a bounded number
     * of series.
     */
    Duration[] TIMER_BUCKETS = {Duration.ofMillis(10), Duration.ofMillis(50), Duration.ofMillis(250),
            Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(30)};

    /** Reads the gauges' values from the store now. */
    void sample();

    /** Stops the background sampling. */
    @Override
    void close();
}
