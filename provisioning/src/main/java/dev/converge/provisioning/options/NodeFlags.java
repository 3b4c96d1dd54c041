package dev.converge.provisioning.options;

import dev.converge.Converge;
import dev.converge.provisioning.NodeOptions;
import dev.converge.provisioning.flow.SiteJobs;
import dev.converge.queue.RetryPolicy;
import java.time.Duration;
import picocli.CommandLine.Option;

/** How a server or worker process works the queue (the flags of {@code converge server} and {@code converge worker}). */
public final class NodeFlags {
    @Option(names = "--concurrency", defaultValue = "16", description = "Handler threads (default ${DEFAULT-VALUE}).")
    int concurrency;

    @Option(names = "--virtual-threads", description = "Run the handlers on virtual threads (JDK 21 and later): a step "
            + "waiting on a leaf holds no platform thread, so --concurrency may be in the hundreds (the database pool "
            + "still bounds how many use the database at once).")
    boolean virtualThreads;

    @Option(names = "--node-id", description = "This node's name in leases and logs (default: host-pid-random).")
    String nodeId;

    @Option(names = "--no-maintenance", description = "Do not take part in the watchdog and the reaper.")
    boolean noMaintenance;

    @Option(names = "--lease", defaultValue = "30s", converter = DurationConverter.class,
            description = "How long a delivery holds its job without a heartbeat.")
    Duration lease;

    @Option(names = "--purge-every", converter = DurationConverter.class, description = "How often the recurring job "
            + "pv.purge-expired deletes expired idempotency keys and approvals (default 10m; give every node the same).")
    Duration purgeEvery;

    @Option(names = "--remove-orphans-every", converter = DurationConverter.class, description = "How often the "
            + "recurring job pv.remove-orphans deletes what the leaves hold for deleted sites that no ledger entry owns "
            + "(default 10m; give every node the same).")
    Duration removeOrphansEvery;

    @Option(names = "--keep-orphans", description = "Never delete orphans on a schedule; report them only "
            + "(converge reconcile, GET /v1/orphans). Give every node the same.")
    boolean keepOrphans;

    // Hidden: engine timings for tests and chaos runs, which need them short.
    @Option(names = "--poll", hidden = true, converter = DurationConverter.class, description = "Idle fetch wait.")
    Duration poll;

    @Option(names = "--maintenance-every", hidden = true, converter = DurationConverter.class,
            description = "Watchdog and reaper interval.")
    Duration maintenanceEvery;

    @Option(names = "--reap-after", hidden = true, converter = DurationConverter.class,
            description = "Age after which the reaper resolves unconfirmed ledger entries and abandoned tokens.")
    Duration reapAfter;

    @Option(names = "--step-attempts", hidden = true, description = "Attempts of a site step.")
    Integer stepAttempts;

    @Option(names = "--step-backoff", hidden = true, converter = DurationConverter.class, description = "First retry delay.")
    Duration stepBackoff;

    @Option(names = "--step-backoff-cap", hidden = true, converter = DurationConverter.class, description = "Longest retry delay.")
    Duration stepBackoffCap;

    @Option(names = "--step-timeout", hidden = true, converter = DurationConverter.class, description = "Step timeout.")
    Duration stepTimeout;

    /** The handler threads asked for, checked: a worker node with none would hold leases it never works. */
    public int concurrency() {
        if (concurrency < 1 || concurrency > 1000) {
            throw new IllegalArgumentException("--concurrency must be between 1 and 1000, was " + concurrency
                    + " (a server that should not work the queue takes --no-workers)");
        }
        return concurrency;
    }

    /** The node's options with this many handler threads (0: it works no queue). */
    public NodeOptions options(int concurrencyOverride) {
        NodeOptions n = NodeOptions.defaults().withConcurrency(concurrencyOverride);
        if (noMaintenance) {
            n = n.withoutMaintenance();
        }
        n = n.withEngine(this::engine);
        if (virtualThreads) {
            java.util.concurrent.ThreadFactory handlers = VirtualThreads.factory();
            n = n.withEngine(b -> b.queues(q -> q.handlerThreads(handlers)));
        }
        if (stepAttempts != null || stepBackoff != null || stepBackoffCap != null || stepTimeout != null) {
            n = n.withJobs(new SiteJobs(RetryPolicy.attempts(stepAttempts != null ? stepAttempts : 8)
                    .backoff(stepBackoff != null ? stepBackoff : Duration.ofMillis(500))
                    .cappedAt(stepBackoffCap != null ? stepBackoffCap : Duration.ofSeconds(30)),
                    stepTimeout != null ? stepTimeout : Duration.ofSeconds(60)));
        }
        if (purgeEvery != null) {
            n = n.withPurgeEvery(purgeEvery);
        }
        if (keepOrphans && removeOrphansEvery != null) {
            throw new IllegalArgumentException("--keep-orphans and --remove-orphans-every contradict each other; give one");
        }
        if (keepOrphans) {
            n = n.withRemoveOrphansEvery(null);
        } else if (removeOrphansEvery != null) {
            n = n.withRemoveOrphansEvery(removeOrphansEvery);
        }
        return n;
    }

    /** The engine settings given as flags, over the service's defaults. */
    private void engine(Converge.Builder b) {
        b.leases(l -> l.duration(lease));
        if (poll != null) {
            b.queues(q -> q.poll(poll));
        }
        if (!noMaintenance && (maintenanceEvery != null || reapAfter != null)) {
            Duration every = maintenanceEvery != null ? maintenanceEvery : NodeOptions.MAINTENANCE_EVERY;
            b.maintenance(m -> m.watchdog(every)).ledger(g -> g.reaper(every, reapAfter != null ? reapAfter : NodeOptions.REAP_AFTER));
        }
        if (nodeId != null) {
            b.nodeId(nodeId);
        }
    }
}
