package dev.converge.metrics.internal;

import dev.converge.metrics.ConvergeMetrics;
import dev.converge.queue.EngineStats;
import dev.converge.queue.internal.EngineRuntime;
import dev.converge.retention.Retention;
import dev.converge.ledger.LedgerState;
import dev.converge.ledger.ResourceType;
import dev.converge.queue.internal.HandlerRegistry;
import dev.converge.retention.RetentionReport;
import dev.converge.store.Store;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's meters in a Micrometer registry (docs/operations.md lists them). Event meters
 * (enqueued, completed, run and wait time, rescues, retention) count what this node did; the
 * gauges of rows by state (queue depth, flows, compensations, ledger entries, orphans) are
 * sampled from the store every {@code sampleEvery} by one background thread, never on a scrape,
 * and read only live rows or tables that retention keeps bounded (except the ledger, which is
 * counted whole: it is never deleted).
 */
public final class MicrometerBinding implements ConvergeMetrics {
    private static final Logger log = LoggerFactory.getLogger(ConvergeMetrics.class);

    private final MeterRegistry registry;
    private final Store store;
    private final Supplier<Map<String, Long>> unhandled;
    private final Map<String, AtomicLong> sampled = new ConcurrentHashMap<>();
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final ScheduledExecutorService sampler;

    /**
     * Binds the meters of an engine's runtime to {@code registry} (a {@code MeterRegistry}; typed as
     * Object so that the engine's builder does not need Micrometer on the class path), registering
     * at zero, before anything happens, the series of its handled job types, their queues and the
     * given resource types, so that every family is in the first scrape. {@code sampleEvery} null
     * samples only on {@link #sample()}.
     */
    public static ConvergeMetrics bind(EngineRuntime runtime, Store store, Supplier<EngineStats> stats,
            Optional<Retention> retention, Supplier<Map<String, Long>> unhandled, Object registry, Duration sampleEvery,
            Collection<ResourceType> resources) {
        if (!(registry instanceof MeterRegistry r)) {
            throw new IllegalArgumentException("not a Micrometer MeterRegistry: " + registry);
        }
        return new MicrometerBinding(runtime, store, stats, retention, unhandled, r, sampleEvery, List.copyOf(resources));
    }

    private MicrometerBinding(EngineRuntime runtime, Store store, Supplier<EngineStats> stats,
            Optional<Retention> retention, Supplier<Map<String, Long>> unhandled, MeterRegistry registry,
            Duration sampleEvery, Collection<ResourceType> resources) {
        this.registry = registry;
        this.store = store;
        this.unhandled = unhandled;
        FunctionCounter.builder("converge.leases.lost", stats, s -> s.get().leaseLost())
                .description("deliveries on this node whose lease moved on before their outcome landed")
                .register(registry);
        FunctionCounter.builder("converge.deliveries.abandoned", stats, s -> s.get().abandoned())
                .description("deliveries on this node that ended without an outcome (redelivered later)")
                .register(registry);
        for (dev.converge.flow.FlowState st : dev.converge.flow.FlowState.values()) {
            gauge("converge.flows", "flows per state", "state", st.sql()); // every state reads 0 before the first sample
        }
        declare(runtime.registry(), resources);
        EngineMeters events = new EngineMeters(registry);
        events.declare(runtime.registry(), resources);
        runtime.observeEngine(events);
        retention.ifPresent(r -> r.onRound(this::retained));
        if (sampleEvery == null) {
            this.sampler = null;
        } else {
            this.sampler = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "converge-metrics");
                t.setDaemon(true);
                return t;
            });
            sampler.scheduleWithFixedDelay(this::sampleQuietly, 0, sampleEvery.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private static final String DEPTH = "jobs waiting or running, per queue and state";
    private static final String COMPENSATIONS = "compensations of flows per state (pending: of a flow compensating now)";
    private static final String ENTRIES = "ledger entries per resource type and state";
    private static final String ORPHANS = "unresolved ledger entries whose owning job has ended (the reaper resolves them)";
    private static final String UNHANDLED = "due jobs in this node's queues of types no live node working the queue "
            + "has a handler for (they wait for one, or fail after the unhandled-job grace; the log names the types)";
    private static final String DELETED = "finished rows deleted by retention";
    private static final String[] RETAINED = {"cv_job", "cv_batch", "cv_chain", "cv_flow", "cv_flow_event",
            "cv_compensation"};

    /**
     * The gauges' series known before the first sample, at zero (per handled type's queue, and the
     * closed sets), and retention's; the events' series are {@link EngineMeters}'.
     */
    private void declare(HandlerRegistry handlers, Collection<ResourceType> resources) {
        Set<String> queues = new java.util.TreeSet<>();
        for (String kind : handlers.handledKinds()) {
            queues.add(handlers.get(kind).type().queue());
        }
        for (String queue : queues) {
            gauge("converge.queue.depth", DEPTH, "queue", queue, "state", "available");
            gauge("converge.queue.depth", DEPTH, "queue", queue, "state", "running");
        }
        for (String table : RETAINED) {
            counter("converge.retention.deleted", DELETED, "table", table);
        }
        for (String state : new String[] {"pending", "done", "failed"}) {
            gauge("converge.compensations", COMPENSATIONS, "state", state);
        }
        for (ResourceType type : resources) {
            for (LedgerState state : LedgerState.values()) {
                gauge("converge.ledger.entries", ENTRIES, "kind", type.kind(), "state", state.sql());
            }
            gauge("converge.ledger.orphans", ORPHANS, "kind", type.kind());
        }
        gauge("converge.jobs.unhandled", UNHANDLED);
    }

    private Counter counter(String name, String description, String... tags) {
        String key = name + String.join("\u0000", tags);
        return counters.computeIfAbsent(key, k -> Counter.builder(name).description(description).tags(tags)
                .register(registry));
    }

    private void retained(RetentionReport r) {
        long[] deleted = {r.jobs(), r.batches(), r.chains(), r.flows(), r.flowEvents(), r.compensations()};
        for (int i = 0; i < RETAINED.length; i++) {
            counter("converge.retention.deleted", DELETED, "table", RETAINED[i]).increment(deleted[i]);
        }
    }

    private void sampleQuietly() {
        try {
            sample();
        } catch (RuntimeException e) {
            log.warn("sampling the engine's gauges failed: {}", e.getMessage());
        }
    }

    @Override
    public void sample() {
        Set<String> seen = new HashSet<>();
        store.withConnection(c -> {
            try (Statement st = c.createStatement()) {
                read(st, seen, "SELECT queue, state, COUNT(*) FROM cv_job WHERE state IN ('available', 'running') "
                        + "GROUP BY queue, state", "converge.queue.depth", DEPTH,
                        List.of("queue", "state"));
                read(st, seen, "SELECT state, COUNT(*) FROM cv_flow GROUP BY state", "converge.flows",
                        "flows per state", List.of("state"));
                // a compensation registered by a flow that succeeded, or runs still, is not work to do
                read(st, seen, "SELECT c.state, COUNT(*) FROM cv_compensation c WHERE c.state <> 'pending' OR EXISTS "
                        + "(SELECT 1 FROM cv_flow f WHERE f.id = c.flow_id AND f.state = 'compensating') GROUP BY c.state",
                        "converge.compensations", COMPENSATIONS, List.of("state"));
                read(st, seen, "SELECT kind, state, COUNT(*) FROM cv_ledger GROUP BY kind, state",
                        "converge.ledger.entries", ENTRIES, List.of("kind", "state"));
                read(st, seen, "SELECT kind, COUNT(*) FROM cv_ledger l WHERE state IN ('claimed', 'uncertain', "
                        + "'deleting') AND NOT EXISTS (SELECT 1 FROM cv_job j WHERE j.id = l.owner_job_id "
                        + "AND j.state IN ('running', 'available')) GROUP BY kind", "converge.ledger.orphans",
                        ORPHANS, List.of("kind"));
            }
            return null;
        });
        seen.add("converge.jobs.unhandled");
        gauge("converge.jobs.unhandled", UNHANDLED).set(unhandled.get().values().stream()
                .mapToLong(Long::longValue).sum());
        // a combination that had rows and has none now reads zero, rather than its last value
        sampled.forEach((k, v) -> {
            if (!seen.contains(k)) {
                v.set(0);
            }
        });
    }

    private void read(Statement st, Set<String> seen, String sql, String name, String description, List<String> tagNames)
            throws java.sql.SQLException {
        try (ResultSet rs = st.executeQuery(store.expand(sql))) {
            while (rs.next()) {
                String[] tags = new String[tagNames.size() * 2];
                for (int i = 0; i < tagNames.size(); i++) {
                    tags[2 * i] = tagNames.get(i);
                    tags[2 * i + 1] = rs.getString(i + 1);
                }
                long n = rs.getLong(tagNames.size() + 1);
                seen.add(name + String.join("\u0000", tags));
                gauge(name, description, tags).set(n);
            }
        }
    }

    private AtomicLong gauge(String name, String description, String... tags) {
        return sampled.computeIfAbsent(name + String.join("\u0000", tags), k -> {
            AtomicLong v = new AtomicLong();
            Gauge.builder(name, v, AtomicLong::get).description(description).tags(Tags.of(tags)).register(registry);
            return v;
        });
    }

    @Override
    public void close() {
        if (sampler != null) {
            sampler.shutdownNow();
        }
    }
}
