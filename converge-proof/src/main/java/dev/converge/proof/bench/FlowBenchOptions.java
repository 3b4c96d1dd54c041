package dev.converge.proof.bench;

import java.nio.file.Path;

/**
 * What one {@code bench flow} run measures on.
 *
 * @param store   "postgres" or "h2"
 * @param dbUrl   PostgreSQL: a JDBC URL of the server to create the scratch databases on
 * @param user    PostgreSQL user
 * @param flows   flows per measured run
 * @param workers handler threads of the engine
 * @param rounds  warm rounds measured after the first (cold) one, guarded and unguarded taking turns
 * @param json    where to write the JSON result, or null
 */
public record FlowBenchOptions(String store, String dbUrl, String user, int flows, int workers, int rounds, Path json) {

    public FlowBenchOptions {
        if (!store.equals("postgres") && !store.equals("h2")) {
            throw new IllegalArgumentException("--store must be postgres or h2, was " + store);
        }
        if (flows < 10 || flows > 1_000_000) {
            throw new IllegalArgumentException("--flows must be between 10 and 1000000, was " + flows);
        }
        if (workers < 1 || workers > 1000) {
            throw new IllegalArgumentException("--workers must be between 1 and 1000, was " + workers);
        }
        if (rounds < 1 || rounds > 20) {
            throw new IllegalArgumentException("--rounds must be between 1 and 20, was " + rounds);
        }
    }

    boolean postgres() {
        return store.equals("postgres");
    }
}
