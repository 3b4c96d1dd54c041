package dev.converge.metrics.internal;

import dev.converge.metrics.ConvergeMetrics;

import dev.converge.queue.internal.EngineObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The engine's counters beyond deliveries: ledger outcomes, teardowns, the reaper, leaf calls,
 * flows, compensations and the watchdog (docs/operations.md lists them). Counted on the node
 * where they happen.
 */
final class EngineMeters implements EngineObserver {
    private final MeterRegistry registry;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();

    EngineMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    private void count(String name, String description, double n, String... tags) {
        counters.computeIfAbsent(name + '\u0000' + String.join("\u0000", tags),
                k -> Counter.builder(name).description(description).tags(tags).register(registry)).increment(n);
    }

    private Timer timer(String name, String description, String... tags) {
        return timers.computeIfAbsent(name + '\u0000' + String.join("\u0000", tags),
                k -> Timer.builder(name).description(description).tags(tags)
                        .serviceLevelObjectives(ConvergeMetrics.TIMER_BUCKETS).register(registry));
    }

    /**
     * Registers, at zero, every series whose tag values are known before the first event: the
     * closed sets, and per resource type those of a create that worked. A family is then in the
     * first scrape, and an alert on it has a series to read before anything happened.
     */
    void declare(java.util.Collection<dev.converge.ledger.ResourceType> resources) {
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
