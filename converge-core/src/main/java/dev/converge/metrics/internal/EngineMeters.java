package dev.converge.metrics.internal;

import dev.converge.metrics.ConvergeMetrics;
import dev.converge.queue.internal.EngineObserver;
import dev.converge.queue.internal.HandlerRegistry;
import dev.converge.queue.internal.LeasedJob;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The engine's event meters, its one metrics listener: deliveries (enqueued, wait, run, completed,
 * retried, rescued), ledger outcomes, teardowns, the reaper, leaf calls, flows, compensations and
 * the watchdog (docs/operations.md lists them), counted on the node where they happen; the gauges
 * are {@link MicrometerBinding}'s.
 */
final class EngineMeters implements EngineObserver {
    private final MeterRegistry registry;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();

    EngineMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    private void count(String name, String description, double n, String... tags) {
        counter(name, description, tags).increment(n);
    }

    private Counter counter(String name, String description, String... tags) {
        return counters.computeIfAbsent(name + '\u0000' + String.join("\u0000", tags),
                k -> Counter.builder(name).description(description).tags(tags).register(registry));
    }

    private Timer timer(String name, String description, String... tags) {
        return timer(name, description, ConvergeMetrics.TIMER_BUCKETS, tags);
    }

    private Timer timer(String name, String description, Duration[] buckets, String... tags) {
        return timers.computeIfAbsent(name + '\u0000' + String.join("\u0000", tags),
                k -> Timer.builder(name).description(description).tags(tags)
                        .serviceLevelObjectives(buckets).register(registry));
    }

    /** The buckets of the time a job waited in its queue. */
    static final Duration[] WAIT_BUCKETS = {Duration.ofMillis(10), Duration.ofMillis(100), Duration.ofSeconds(1),
            Duration.ofSeconds(10), Duration.ofMinutes(1), Duration.ofMinutes(10)};
    private static final String ENQUEUED = "jobs enqueued through this node";
    private static final String RETRIED = "deliveries that failed and put their job back for another attempt";
    private static final String COMPLETED = "jobs this node completed: succeeded, failed for good or cancelled";
    private static final String RUN = "handler run time of each delivery";
    private static final String WAIT = "time from a job being due to its handler starting, per queue";
    private static final String RESCUED = "expired leases this node put back or failed";

    @Override
    public void enqueued(String queue, String kind) {
        counter("converge.jobs.enqueued", ENQUEUED, "queue", queue, "type", kind).increment();
    }

    @Override
    public void started(LeasedJob job, long waitedMillis) {
        timer("converge.jobs.wait", WAIT, WAIT_BUCKETS, "queue", job.queue())
                .record(waitedMillis, TimeUnit.MILLISECONDS);
    }

    @Override
    public void ran(LeasedJob job, long nanos) {
        timer("converge.jobs.run", RUN, "queue", job.queue(), "type", job.kind()).record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void settled(LeasedJob job, String outcome) {
        switch (outcome) {
            case "retried" -> counter("converge.jobs.retried", RETRIED, "queue", job.queue(), "type", job.kind()).increment();
            case "lease_lost" -> {
                // counted by converge.leases.lost: the job did not complete here
            }
            default -> counter("converge.jobs.completed", COMPLETED, "queue", job.queue(), "type", job.kind(),
                    "outcome", outcome).increment();
        }
    }

    @Override
    public void rescued(int n) {
        counter("converge.leases.rescued", RESCUED).increment(n);
    }

    /**
     * Registers, at zero, every series whose tag values are known before the first event: the
     * closed sets, and per resource type those of a create that worked. A family is then in the
     * first scrape, and an alert on it has a series to read before anything happened.
     */
    void declare(HandlerRegistry handlers, java.util.Collection<dev.converge.ledger.ResourceType> resources) {
        java.util.Set<String> queues = new java.util.TreeSet<>();
        for (String kind : handlers.handledKinds()) {
            String queue = handlers.get(kind).type().queue();
            queues.add(queue);
            counter("converge.jobs.enqueued", ENQUEUED, "queue", queue, "type", kind);
            counter("converge.jobs.retried", RETRIED, "queue", queue, "type", kind);
            for (String outcome : new String[] {"succeeded", "failed", "cancelled"}) {
                counter("converge.jobs.completed", COMPLETED, "queue", queue, "type", kind, "outcome", outcome);
            }
            timer("converge.jobs.run", RUN, "queue", queue, "type", kind);
        }
        for (String queue : queues) {
            timer("converge.jobs.wait", WAIT, WAIT_BUCKETS, "queue", queue);
        }
        counter("converge.leases.rescued", RESCUED);
        count("converge.reaper.scheduled", "stale ledger entries the reaper scheduled for resolution", 0);
        count("converge.flows.started", "flows started through this node", 0);
        count("converge.flows.failed", "flows that failed and began compensating", 0);
        for (String state : new String[] {"succeeded", "failed", "needs_attention"}) {
            count("converge.flows.ended", "flows that ended, by final state", 0, "state", state);
        }
        for (String outcome : new String[] {"done", "retried", "gave_up"}) {
            count("converge.compensations.run", "compensations of failed flows run, by outcome", 0, "outcome", outcome);
        }
        for (String action : new String[] {"deadline_failed", "compensation_overdue"}) {
            count("converge.watchdog.actions", "flows the watchdog failed (deadline) or ended (compensation overdue)", 0,
                    "action", action);
        }
        for (dev.converge.ledger.ResourceType type : resources) {
            for (String outcome : new String[] {"created", "adopted", "existing"}) {
                count("converge.ledger.ensure", "ensure() calls by resource type and ledger outcome", 0,
                        "kind", type.kind(), "outcome", outcome);
            }
            timer("converge.leaf.call", "calls the engine made to leaves, by outcome", "kind", type.kind(),
                    "operation", "create", "safety", type.createSafety().sql(), "outcome", "ok");
            count("converge.ledger.teardown", "ledger entries torn down, by how", 0, "kind", type.kind(),
                    "outcome", "deleted");
            count("converge.reaper.resolved", "stale ledger entries the reaper resolved, by how", 0,
                    "kind", type.kind(), "outcome", "confirmed");
        }
    }

    @Override
    public Activity ensure(String kind, String safety) {
        return (outcome, error) -> count("converge.ledger.ensure", "ensure() calls by resource type and ledger outcome", 1,
                "kind", kind, "outcome", outcome);
    }

    @Override
    public Activity leafCall(String type, String operation, String safety) {
        long start = System.nanoTime();
        return (outcome, error) -> timer("converge.leaf.call", "calls the engine made to leaves, by outcome", "kind", type,
                "operation", operation, "safety", safety, "outcome", outcome)
                .record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
    }

    @Override
    public Activity flowStart(String kind) {
        return (outcome, error) -> {
            if ("started".equals(outcome)) {
                count("converge.flows.started", "flows started through this node", 1);
            }
        };
    }

    @Override
    public void tornDown(String kind, String outcome) {
        count("converge.ledger.teardown", "ledger entries torn down, by how", 1, "kind", kind, "outcome", outcome);
    }

    @Override
    public void reaped(int n) {
        count("converge.reaper.scheduled", "stale ledger entries the reaper scheduled for resolution", n);
    }

    @Override
    public void resolved(String kind, String outcome) {
        count("converge.reaper.resolved", "stale ledger entries the reaper resolved, by how", 1, "kind", kind,
                "outcome", outcome);
    }

    @Override
    public void flowMoved(String kind, String state) {
        if ("compensating".equals(state)) {
            count("converge.flows.failed", "flows that failed and began compensating", 1);
        } else {
            count("converge.flows.ended", "flows that ended, by final state", 1, "state", state);
        }
    }

    @Override
    public void compensationRan(String type, String outcome) {
        count("converge.compensations.run", "compensations of failed flows run, by outcome", 1, "outcome", outcome);
    }

    @Override
    public void watchdog(String action, int n) {
        count("converge.watchdog.actions", "flows the watchdog failed (deadline) or ended (compensation overdue)", n,
                "action", action);
    }
}
