package dev.converge.dashboard;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import dev.converge.Converge;
import dev.converge.queue.EngineStats;
import dev.converge.recurring.RecurringView;
import dev.converge.store.Store;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The overview's counts, grouped at most once per {@link #maxAge} however many dashboards poll:
 * ten open browser tabs cost the database what one does. After the first, a viewer never waits
 * for the counts: the one that finds them old starts the next reading in the background.
 */
final class OverviewCache {
    private final Queries queries;
    private final Store store;
    private final Converge engine;
    private final Duration maxAge;
    private Overview last;
    private long lastNanos;
    private boolean refreshing;
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(OverviewCache.class);
    /** One computation at a time, on a daemon thread: a dashboard never keeps its application from stopping. */
    private final java.util.concurrent.ExecutorService refresher = java.util.concurrent.Executors.newSingleThreadExecutor(
            r -> {
                Thread t = new Thread(r, "converge-dashboard-overview");
                t.setDaemon(true);
                return t;
            });

    OverviewCache(Queries queries, Store store, Converge engine, Duration maxAge) {
        this.queries = queries;
        this.store = store;
        this.engine = engine;
        this.maxAge = maxAge;
    }

    /** What the overview shows (snake_case on the wire, like the rest of the API). */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    record Overview(String asOf, List<QueueView> queues, Map<String, Long> flows,
            Map<String, Map<String, Long>> ledger, long uncertain, long longClaimed, long longClaimedMinutes,
            Map<String, Long> thisNode, int bucketMinutes, List<Recurring> recurring) {
    }

    /** One recurring job: its schedule, the last slot decided and the next one due. */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    record Recurring(String name, String jobType, String schedule, String missedSlots, String lastSlot,
            Long lastJobId, long skipped, String nextSlot, boolean paused) {
        static Recurring of(RecurringView v) {
            return new Recurring(v.name(), v.jobType(), Schedules.words(v.schedule()),
                    v.missedSlots().name().toLowerCase(java.util.Locale.ROOT),
                    v.lastSlot() == null ? null : v.lastSlot().toString(), v.lastJobId(), v.skipped(),
                    v.nextSlot() == null ? null : v.nextSlot().toString(), v.paused());
        }
    }

    /** One queue: jobs by state, and per bucket of the last hour [succeeded, failed]. */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    record QueueView(String queue, Map<String, Long> states, long succeededLastHour, long failedLastHour,
            long[][] throughput) {
    }

    private static Map<String, Long> node(EngineStats s) {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("failed", s.failed());
        m.put("lease_lost", s.leaseLost());
        m.put("rescued", s.rescued());
        m.put("retried", s.retried());
        m.put("abandoned", s.abandoned());
        return m;
    }

    /**
     * The last overview computed. The first viewer waits for it; later, one that finds it older than
     * {@link #maxAge} starts the next computation in the background and is answered with the last
     * one at once (the page shows its {@code as_of}), so a poll never waits on the counts.
     */
    Overview get() {
        Overview shown;
        synchronized (this) {
            if (last == null) {
                last = read();
                lastNanos = System.nanoTime();
                return last;
            }
            shown = last;
            if (refreshing || System.nanoTime() - lastNanos < maxAge.toNanos()) {
                return shown;
            }
            refreshing = true;
        }
        try {
            refresher.execute(this::refresh);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            synchronized (this) {
                refreshing = false;
            }
        }
        return shown;
    }

    private void refresh() {
        try {
            Overview fresh = read();
            synchronized (this) {
                last = fresh;
                lastNanos = System.nanoTime();
            }
        } catch (RuntimeException e) {
            log.warn("could not count the overview ({}); showing the last counts", e.getMessage());
        } finally {
            synchronized (this) {
                refreshing = false;
            }
        }
    }

    private Overview read() {
        Instant now = store.clock().localNow();
        return store.withConnection(c -> {
            Map<String, Map<String, Long>> jobs = queries.jobsByQueue(c);
            Map<String, long[][]> series = queries.throughput(c, now);
            List<QueueView> queues = new ArrayList<>();
            java.util.Set<String> names = new java.util.TreeSet<>(jobs.keySet());
            names.addAll(series.keySet());
            for (String q : names) {
                long[][] s = series.getOrDefault(q, new long[Queries.BUCKETS][2]);
                long ok = 0;
                long failed = 0;
                for (long[] b : s) {
                    ok += b[0];
                    failed += b[1];
                }
                queues.add(new QueueView(q, jobs.getOrDefault(q, Map.of()), ok, failed, s));
            }
            Map<String, Map<String, Long>> ledger = queries.ledgerByKind(c);
            long uncertain = ledger.values().stream().mapToLong(m -> m.getOrDefault("uncertain", 0L)).sum();
            return new Overview(now.toString(), queues, queries.byState(c, "cv_flow"),
                    new LinkedHashMap<>(ledger), uncertain, queries.longClaimedCount(c, now),
                    queries.longClaimed().toMinutes(), node(engine.stats()), (int) Queries.BUCKET.toMinutes(),
                    engine.recurring().list().stream().map(Recurring::of).toList());
        });
    }
}
