package dev.converge.proof.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The yardsticks for enqueueing: what a careful hand-written producer does on the same table with
 * the same columns (queue, kind, payload, state, run_at, max_attempts, created_at), and no more.
 * Bulk: one transaction of {@code INSERT ... SELECT FROM unnest(...)} per {@value #SLICE} rows
 * (PostgreSQL; on H2 a JDBC batch of the same size). One at a time: a bare autocommit INSERT per
 * job from each thread's own connection, no NOTIFY, no returned id.
 */
final class EnqueueReference {
    static final int SLICE = 1000;

    private static final String UNNEST = "INSERT INTO cv_job (queue, kind, payload, state, run_at, max_attempts, created_at) "
            + "SELECT ?, ?, p, 'available', CURRENT_TIMESTAMP, 25, CURRENT_TIMESTAMP FROM unnest(CAST(? AS text[])) AS t(p)";
    private static final String ONE = "INSERT INTO cv_job (queue, kind, payload, state, run_at, max_attempts, created_at) "
            + "VALUES (?, ?, ?, 'available', CURRENT_TIMESTAMP, 25, CURRENT_TIMESTAMP)";

    private EnqueueReference() {
    }

    /** Inserts {@code n} no-op jobs in one transaction; returns jobs per second. */
    static double bulk(BenchDatabase db, String queue, String kind, int n) throws SQLException {
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            long start = System.nanoTime();
            if (db.postgres()) {
                try (PreparedStatement ps = c.prepareStatement(UNNEST)) {
                    for (int from = 0; from < n; from += SLICE) {
                        int to = Math.min(n, from + SLICE);
                        String[] payloads = new String[to - from];
                        for (int i = from; i < to; i++) {
                            payloads[i - from] = NoopJob.payload(i);
                        }
                        ps.setString(1, queue);
                        ps.setString(2, kind);
                        ps.setArray(3, c.createArrayOf("text", payloads));
                        ps.executeUpdate();
                    }
                }
            } else {
                try (PreparedStatement ps = c.prepareStatement(ONE)) {
                    for (int i = 0; i < n; i++) {
                        ps.setString(1, queue);
                        ps.setString(2, kind);
                        ps.setString(3, NoopJob.payload(i));
                        ps.addBatch();
                        if ((i + 1) % SLICE == 0 || i == n - 1) {
                            ps.executeBatch();
                        }
                    }
                }
            }
            c.commit();
            return n * 1e9 / (System.nanoTime() - start);
        }
    }

    /** Inserts {@code n} jobs one per autocommit statement from {@code threads} threads; returns jobs per second. */
    static double oneAtATime(BenchDatabase db, String queue, String kind, int threads, int n) throws Exception {
        AtomicInteger next = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> all = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(() -> {
                try (Connection c = db.connect(); PreparedStatement ps = c.prepareStatement(ONE)) {
                    c.setAutoCommit(true);
                    ready.countDown();
                    go.await();
                    int i;
                    while ((i = next.getAndIncrement()) < n) {
                        ps.setString(1, queue);
                        ps.setString(2, kind);
                        ps.setString(3, NoopJob.payload(i));
                        ps.executeUpdate();
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                    ready.countDown();
                }
            }, "reference-insert-" + t);
            all.add(th);
            th.start();
        }
        ready.await();
        long start = System.nanoTime();
        go.countDown();
        for (Thread th : all) {
            th.join();
        }
        long elapsed = System.nanoTime() - start;
        if (failure.get() != null) {
            throw new IllegalStateException("reference insert failed: " + failure.get(), failure.get());
        }
        return n * 1e9 / elapsed;
    }
}
