package dev.converge.provisioning.bench;

import java.nio.file.Path;

/**
 * What one {@code bench queue} run measures on.
 *
 * @param store    "postgres" or "h2"
 * @param dbUrl    PostgreSQL: a JDBC URL of the server to create the scratch database on
 * @param user     PostgreSQL user
 * @param jobs     jobs per measured phase
 * @param workers  handler threads of the engine, and threads of the reference loop
 * @param samples  pickup-latency samples
 * @param prefetch jobs the engine may lease ahead of its handler threads (the builder's {@code prefetch})
 * @param rounds   measured rounds of bulk enqueue, engine processing and reference processing, interleaved
 * @param json     where to write the JSON result, or null
 */
public record QueueBenchOptions(String store, String dbUrl, String user, int jobs, int workers, int samples,
        int prefetch, int rounds, Path json) {

    public QueueBenchOptions {
        if (!store.equals("postgres") && !store.equals("h2")) {
            throw new IllegalArgumentException("--store must be postgres or h2, was " + store);
        }
        if (jobs < 100 || jobs > 10_000_000) {
            throw new IllegalArgumentException("--jobs must be between 100 and 10000000, was " + jobs);
        }
        if (workers < 1 || workers > 1000) {
            throw new IllegalArgumentException("--workers must be between 1 and 1000, was " + workers);
        }
        if (prefetch < 0 || prefetch > 10_000) {
            throw new IllegalArgumentException("--prefetch must be between 0 and 10000, was " + prefetch);
        }
        if (rounds < 1 || rounds > 20) {
            throw new IllegalArgumentException("--rounds must be between 1 and 20, was " + rounds);
        }
        if (samples < 10 || samples > 100_000) {
            throw new IllegalArgumentException("--samples must be between 10 and 100000, was " + samples);
        }
    }

    public boolean postgres() {
        return store.equals("postgres");
    }
}
