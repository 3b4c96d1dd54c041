package dev.converge.provisioning;

import dev.converge.Converge;
import dev.converge.queue.EngineStats;
import dev.converge.store.Store;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;

/**
 * Exposes the engine's counters and the service's states to Prometheus: jobs by outcome (this
 * node) and sites by state (the whole store, read at most every
 * {@link #REFRESH}, so a scrape flood costs no database work).
 */
final class ServiceMetrics {
    /** How stale the whole-store counts may be: scrapes in between are served from memory. */
    static final Duration REFRESH = Duration.ofSeconds(15);

    private ServiceMetrics() {
    }

    static void bind(MeterRegistry meters, Converge engine, Store store, dev.converge.provisioning.site.Sites sites) {
        counter(meters, "leased", engine, EngineStats::leased);
        counter(meters, "succeeded", engine, EngineStats::succeeded);
        counter(meters, "failed", engine, EngineStats::failed);
        counter(meters, "retried", engine, EngineStats::retried);
        counter(meters, "cancelled", engine, EngineStats::cancelled);
        counter(meters, "lease_lost", engine, EngineStats::leaseLost);
        counter(meters, "abandoned", engine, EngineStats::abandoned);
        counter(meters, "rescued", engine, EngineStats::rescued);
        states(meters, store, "converge_sites", "SELECT state, COUNT(*) FROM pv_site GROUP BY state",
                new String[] {"provisioning", "active", "failed", "needs_attention", "deleting", "deleted"});
        Gauge.builder("converge_site_provisionings_limit", sites, dev.converge.provisioning.site.Sites::provisioningsAtOnce)
                .description("site provisionings this node lets run at once: --provisionings-in-flight if given, else "
                        + "1.25 per handler thread of the live workers, at most 100 (the fleet read at most every 5 s)")
                .register(meters);
        // flows and ledger entries by state come from the engine's own meters (Converge.Builder.metrics)
    }

    private static void counter(MeterRegistry meters, String outcome, Converge engine, ToDoubleFunction<EngineStats> f) {
        FunctionCounter.builder("converge_jobs", engine, e -> f.applyAsDouble(e.stats()))
                .description("job deliveries on this node by outcome").tag("outcome", outcome).register(meters);
    }

    private static void states(MeterRegistry meters, Store store, String name, String sql, String[] states) {
        Map<String, Long> last = new ConcurrentHashMap<>();
        AtomicLong due = new AtomicLong(System.nanoTime());
        for (String state : states) {
            Gauge.builder(name, () -> {
                long now = System.nanoTime();
                long at = due.get();
                // one GROUP BY per REFRESH however often anyone scrapes
                if (now - at >= 0 && due.compareAndSet(at, now + REFRESH.toNanos())) {
                    refresh(store, sql, last);
                }
                return last.getOrDefault(state, 0L);
            }).description("sites per state, all tenants (read from the store at most every 15 s)").tag("state", state)
                    .register(meters);
        }
    }

    private static void refresh(Store store, String sql, Map<String, Long> into) {
        try {
            store.withConnection(c -> {
                try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
                    into.clear();
                    while (rs.next()) {
                        into.put(rs.getString(1), rs.getLong(2));
                    }
                }
                return null;
            });
        } catch (RuntimeException e) {
            // a scrape during an outage shows the last known counts
        }
    }
}
