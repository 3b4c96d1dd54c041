package dev.converge.queue.internal;

import static dev.converge.store.internal.Templates.sql;

import dev.converge.store.internal.Dialects;
import dev.converge.queue.HistoryPoint;
import dev.converge.store.Store;
import dev.converge.store.internal.Dialect;
import dev.converge.store.Params;
import dev.converge.store.Sql;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps each queue's history ({@code cv_queue_history}): this node counts what its deliveries do
 * (cheaply, on the hot path) and adds one row per queue every minute with what changed since the
 * last row it wrote; the leader samples every queue's depth and deletes rows older than
 * {@link #KEPT}. A row that cannot be written (the database is away, or the schema is the previous
 * release's) is not lost: the next one carries it.
 */
public final class HistoryRecorder implements EngineObserver {
    private static final Logger log = LoggerFactory.getLogger(HistoryRecorder.class);
    /** How long rows are kept. */
    public static final Duration KEPT = Duration.ofDays(7);
    /** How often a node writes its counts and the leader samples depth. */
    public static final Duration EVERY = Duration.ofMinutes(1);
    /** Upper bounds of the time buckets; a ninth holds longer times. */
    static final long[] BOUNDS_MS = {10, 50, 250, 1_000, 5_000, 30_000, 120_000, 600_000};
    /** What a p95 in the last bucket reads as. */
    static final long LONGER_MS = 3_600_000;
    private static final int B = BOUNDS_MS.length + 1;
    /** Steps a reading is drawn in, in minutes: the smallest giving at most 200 points. */
    private static final long[] STEPS = {1, 5, 15, 60, 180, 360, 1440};

    private final Store store;
    private final String nodeId;
    private final Map<String, Tally> tallies = new ConcurrentHashMap<>();
    private final Sql insert;
    private final Sql available;
    private final Sql runningNow;
    private final Sql prune;
    private final Map<Long, Sql> reads = new ConcurrentHashMap<>();
    private final String sums;
    private volatile boolean failing;

    public HistoryRecorder(Store store, String nodeId) {
        this.store = store;
        this.nodeId = nodeId;
        Dialect d = Dialects.forUrl(store.config().url(), store.config().schema());
        StringBuilder cols = new StringBuilder();
        StringBuilder vals = new StringBuilder();
        StringBuilder sums = new StringBuilder();
        for (String p : new String[] {"w", "r"}) {
            for (int i = 0; i < B; i++) {
                cols.append(", ").append(p).append(i);
                vals.append(", :").append(p).append(i);
                sums.append(", SUM(").append(p).append(i).append(')');
            }
        }
        this.insert = sql(d, "INSERT INTO cv_queue_history (at_minute, queue, node_id, succeeded, failed, retried, "
                + "depth, running" + cols + ") VALUES (:minute, :queue, :node, :succeeded, :failed, :retried, :depth, "
                + ":running" + vals + ")");
        this.available = sql(d, "SELECT queue, COUNT(*) FROM cv_job WHERE state = 'available' AND run_at <= {now} "
                + "GROUP BY queue");
        this.runningNow = sql(d, "SELECT queue, COUNT(*) FROM cv_job WHERE state = 'running' GROUP BY queue");
        this.prune = sql(d, "DELETE FROM cv_queue_history WHERE at_minute < :before");
        this.sums = sums.toString();
    }

    /** What one queue's deliveries did on this node since it started. */
    private static final class Tally {
        final LongAdder succeeded = new LongAdder();
        final LongAdder failed = new LongAdder();
        final LongAdder retried = new LongAdder();
        final LongAdder[] waited = adders();
        final LongAdder[] ran = adders();
        /** The sums as of the last row written: succeeded, failed, retried, then waited and ran. */
        final long[] written = new long[3 + 2 * B];

        long[] sums() {
            long[] s = new long[written.length];
            s[0] = succeeded.sum();
            s[1] = failed.sum();
            s[2] = retried.sum();
            for (int i = 0; i < B; i++) {
                s[3 + i] = waited[i].sum();
                s[3 + B + i] = ran[i].sum();
            }
            return s;
        }

        private static LongAdder[] adders() {
            LongAdder[] a = new LongAdder[B];
            for (int i = 0; i < B; i++) {
                a[i] = new LongAdder();
            }
            return a;
        }
    }

    static int bucket(long millis) {
        for (int i = 0; i < BOUNDS_MS.length; i++) {
            if (millis <= BOUNDS_MS[i]) {
                return i;
            }
        }
        return BOUNDS_MS.length;
    }

    private Tally tally(String queue) {
        Tally t = tallies.get(queue);
        return t != null ? t : tallies.computeIfAbsent(queue, q -> new Tally());
    }

    @Override
    public void started(LeasedJob job, long waitedMillis) {
        tally(job.queue()).waited[bucket(waitedMillis)].increment();
    }

    @Override
    public void ran(LeasedJob job, long nanos) {
        tally(job.queue()).ran[bucket(nanos / 1_000_000)].increment();
    }

    @Override
    public void settled(LeasedJob job, String outcome) {
        switch (outcome) {
            case "succeeded" -> tally(job.queue()).succeeded.increment();
            case "failed" -> tally(job.queue()).failed.increment();
            case "retried" -> tally(job.queue()).retried.increment();
            default -> {
            }
        }
    }

    private long minute() {
        return Math.floorDiv(store.clock().localNow().toEpochMilli(), 60_000L);
    }

    /** Writes a row per queue with what this node's deliveries did since its last row (none if nothing). */
    public synchronized void flush() {
        long minute = minute();
        Map<Tally, long[]> rows = new LinkedHashMap<>();
        Map<Tally, String> names = new LinkedHashMap<>();
        tallies.forEach((queue, t) -> {
            long[] now = t.sums();
            long[] delta = new long[now.length];
            boolean any = false;
            for (int i = 0; i < now.length; i++) {
                delta[i] = now[i] - t.written[i];
                any |= delta[i] != 0;
            }
            if (any) {
                rows.put(t, now);
                names.put(t, queue);
            }
        });
        if (rows.isEmpty()) {
            return;
        }
        try {
            store.inTransaction(c -> {
                for (Map.Entry<Tally, long[]> e : rows.entrySet()) {
                    long[] now = e.getValue();
                    long[] was = e.getKey().written;
                    Params p = Params.of().bigint("minute", minute).text("queue", names.get(e.getKey()))
                            .text("node", nodeId).integer("succeeded", delta(now, was, 0))
                            .integer("failed", delta(now, was, 1)).integer("retried", delta(now, was, 2))
                            .integer("depth", null).integer("running", null);
                    for (int i = 0; i < B; i++) {
                        p.integer("w" + i, delta(now, was, 3 + i)).integer("r" + i, delta(now, was, 3 + B + i));
                    }
                    insert.update(c, p);
                }
                return null;
            });
            rows.forEach((t, now) -> System.arraycopy(now, 0, t.written, 0, now.length));
            recovered();
        } catch (RuntimeException e) {
            failed("could not write this node's queue history (the next row carries it)", e);
        }
    }

    private static int delta(long[] now, long[] was, int i) {
        return (int) Math.min(Integer.MAX_VALUE, now[i] - was[i]);
    }

    /**
     * The leader's round: a row per queue with its depth and running jobs now, and old rows deleted.
     *
     * @param queues the queues the fleet works, sampled even when nothing waits in them
     */
    public void sample(Collection<String> queues) {
        long minute = minute();
        try {
            store.inTransaction(c -> {
                Params now = Params.of().now(store.clock().sqlNow());
                Map<String, Integer> depth = counts(c, available, now);
                Map<String, Integer> running = counts(c, runningNow, now);
                TreeSet<String> all = new TreeSet<>(queues);
                all.addAll(depth.keySet());
                all.addAll(running.keySet());
                for (String q : all) {
                    Params p = Params.of().bigint("minute", minute).text("queue", q).text("node", nodeId)
                            .integer("succeeded", 0).integer("failed", 0).integer("retried", 0)
                            .integer("depth", depth.getOrDefault(q, 0)).integer("running", running.getOrDefault(q, 0));
                    for (int i = 0; i < B; i++) {
                        p.integer("w" + i, 0).integer("r" + i, 0);
                    }
                    insert.update(c, p);
                }
                prune.update(c, Params.of().bigint("before", minute - KEPT.toMinutes()));
                return null;
            });
            recovered();
        } catch (RuntimeException e) {
            failed("could not sample the queues' depth for their history", e);
        }
    }

    private static Map<String, Integer> counts(java.sql.Connection c, Sql sql, Params now) throws SQLException {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (Object[] row : sql.query(c, now, rs -> new Object[] {rs.getString(1), rs.getInt(2)})) {
            out.put((String) row[0], (Integer) row[1]);
        }
        return out;
    }

    private void failed(String what, RuntimeException e) {
        if (!failing) {
            failing = true;
            log.warn("{}: {}", what, e.getMessage());
        } else {
            log.debug("{}: {}", what, e.getMessage());
        }
    }

    private void recovered() {
        if (failing) {
            failing = false;
            log.info("queue history is being written again");
        }
    }

    /** The step a reading over {@code span} is drawn in: the smallest giving at most 200 points. */
    public static Duration step(Duration span) {
        long minutes = Math.max(1, span.toMinutes());
        for (long s : STEPS) {
            if (minutes / s <= 200) {
                return Duration.ofMinutes(s);
            }
        }
        return Duration.ofMinutes(STEPS[STEPS.length - 1]);
    }

    /** One queue over the last {@code span}, oldest first, a point for every step (zeros where nothing happened). */
    public List<HistoryPoint> read(String queue, Duration span) {
        long step = step(span).toMinutes();
        long last = Math.floorDiv(minute(), step);
        long first = last - Math.max(1, (span.toMinutes() + step - 1) / step) + 1;
        Map<Long, HistoryPoint> found = new LinkedHashMap<>();
        // the step is one of STEPS, written into the statement so that SELECT and GROUP BY name the same expression
        Sql read = reads.computeIfAbsent(step, n -> Sql.of(store, "SELECT at_minute / " + n
                + ", SUM(succeeded), SUM(failed), SUM(retried), MAX(depth), MAX(running)" + sums
                + " FROM cv_queue_history WHERE queue = :queue AND at_minute >= :from GROUP BY at_minute / " + n));
        store.withConnection(c -> read.query(c, Params.of().text("queue", queue)
                .bigint("from", first * step), rs -> point(rs, step))).forEach(p -> found.put(slot(p, step), p));
        List<HistoryPoint> out = new ArrayList<>();
        for (long s = first; s <= last; s++) {
            HistoryPoint p = found.get(s);
            out.add(p != null ? p : new HistoryPoint(Instant.ofEpochSecond(s * step * 60), Duration.ofMinutes(step),
                    0, 0, 0, null, null, null, null));
        }
        return out;
    }

    private static long slot(HistoryPoint p, long step) {
        return p.at().getEpochSecond() / 60 / step;
    }

    private static HistoryPoint point(ResultSet rs, long step) throws SQLException {
        long slot = rs.getLong(1);
        long[] waited = new long[B];
        long[] ran = new long[B];
        for (int i = 0; i < B; i++) {
            waited[i] = rs.getLong(7 + i);
            ran[i] = rs.getLong(7 + B + i);
        }
        return new HistoryPoint(Instant.ofEpochSecond(slot * step * 60), Duration.ofMinutes(step), rs.getLong(2),
                rs.getLong(3), rs.getLong(4), Sql.nullableInt(rs, 5), Sql.nullableInt(rs, 6), p95(waited), p95(ran));
    }

    /** The upper bound of the bucket holding the 95th percentile; null when the buckets are empty. */
    static Duration p95(long[] counts) {
        long total = 0;
        for (long n : counts) {
            total += n;
        }
        if (total == 0) {
            return null;
        }
        long rank = (long) Math.ceil(total * 0.95);
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return Duration.ofMillis(i < BOUNDS_MS.length ? BOUNDS_MS[i] : LONGER_MS);
            }
        }
        return Duration.ofMillis(LONGER_MS);
    }
}
