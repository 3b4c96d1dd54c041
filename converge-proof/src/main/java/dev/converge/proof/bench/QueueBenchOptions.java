package dev.converge.proof.bench;

import java.nio.file.Path;

/**
 * What one {@code bench queue} run measures on.
 *
 * @param store      "postgres" or "h2"
 * @param dbUrl      PostgreSQL: a JDBC URL of the server to create the scratch database on
 * @param user       PostgreSQL user
 * @param jobs       jobs per measured phase
 * @param workers    handler threads of the engine, and threads of the reference loop
 * @param samples    pickup-latency samples
 * @param prefetch   jobs the engine may lease ahead of its handler threads; -1: the builder's default
 * @param fetchLimit jobs one fetch may lease; -1: the builder's default
 * @param rounds     warm rounds measured after the first (cold) one, engine and references interleaved
 * @param vacuum     whether every processing run (engine and reference alike) starts after VACUUM ANALYZE
 * @param only       the phases to run (bulk, single, process, pickup); empty: all
 * @param json       where to write the JSON result, or null
 * @param finishedRows succeeded jobs already in the table (as a year of history leaves) before every processing run
 */
public record QueueBenchOptions(String store, String dbUrl, String user, int jobs, int workers, int samples,
        int prefetch, int fetchLimit, int rounds, boolean vacuum, java.util.Set<String> only, Path json,
        long finishedRows) {

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
        if (prefetch < -1 || prefetch > 10_000) {
            throw new IllegalArgumentException("--prefetch must be between 0 and 10000 (or -1: default), was " + prefetch);
        }
        if (fetchLimit < -1 || fetchLimit == 0 || fetchLimit > 10_000) {
            throw new IllegalArgumentException("--fetch-limit must be between 1 and 10000 (or -1: default), was "
                    + fetchLimit);
        }
        if (rounds < 1 || rounds > 20) {
            throw new IllegalArgumentException("--rounds must be between 1 and 20, was " + rounds);
        }
        for (String phase : only) {
            if (!java.util.Set.of("bulk", "single", "process", "pickup").contains(phase)) {
                throw new IllegalArgumentException("--only takes bulk, single, process, pickup; was " + phase);
            }
        }
        if (finishedRows < 0 || finishedRows > 100_000_000) {
            throw new IllegalArgumentException("--finished-rows must be between 0 and 100000000, was " + finishedRows);
        }
        if (samples < 10 || samples > 100_000) {
            throw new IllegalArgumentException("--samples must be between 10 and 100000, was " + samples);
        }
    }

    public boolean runs(String phase) {
        return only.isEmpty() || only.contains(phase);
    }

    public boolean postgres() {
        return store.equals("postgres");
    }
}
