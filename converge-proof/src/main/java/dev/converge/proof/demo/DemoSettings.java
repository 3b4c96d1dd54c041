package dev.converge.proof.demo;

import java.nio.file.Path;
import java.time.Duration;

/**
 * What the demo does.
 *
 * @param sites            how many sites to request
 * @param seed             seeds leaf faults, crash points and the client's choices
 * @param faultRate        probability that a leaf call meets a fault
 * @param crashRate        probability that an attempt dies at a crash point it reaches
 * @param teardownFraction share of active sites then deleted
 * @param timeout          how long to wait for convergence before checking anyway
 * @param json             where to write the report as JSON, or null
 * @param siteDb           JDBC URL of a PostgreSQL server for per-site databases, or null
 * @param trial            a short trial to watch end (sites subscribed in time stay, the others expire after
 *                         one reminder, and a failed site is retried by hand), or null for a 14-day trial nobody
 *                         waits for
 */
public record DemoSettings(int sites, long seed, double faultRate, double crashRate, double teardownFraction,
        Duration timeout, Path json, String siteDb, Duration trial) {

    /** The demo without a trial to watch. */
    public DemoSettings(int sites, long seed, double faultRate, double crashRate, double teardownFraction,
            Duration timeout, Path json, String siteDb) {
        this(sites, seed, faultRate, crashRate, teardownFraction, timeout, json, siteDb, null);
    }

    public DemoSettings {
        if (sites < 1 || sites > 2000) {
            throw new IllegalArgumentException("--sites must be between 1 and 2000");
        }
        if (faultRate < 0 || faultRate > 0.5 || crashRate < 0 || crashRate > 0.5) {
            throw new IllegalArgumentException("--fault-rate and --crash-rate must be between 0 and 0.5");
        }
        if (teardownFraction < 0 || teardownFraction > 1) {
            throw new IllegalArgumentException("--teardown must be between 0 and 1");
        }
        if (trial != null && (trial.compareTo(Duration.ofSeconds(30)) < 0 || trial.compareTo(Duration.ofHours(1)) > 0)) {
            throw new IllegalArgumentException("--trial must be between 30s (time to provision and subscribe first) and 1h");
        }
    }
}
