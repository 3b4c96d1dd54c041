package dev.converge.proof.bench;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The yardstick the engine is measured against: a minimal, good hand-written SKIP LOCKED loop on
 * the same table, rows and database. Each thread claims 100 due jobs with one UPDATE ... RETURNING
 * (portable: generated keys), then marks them done with one UPDATE ... WHERE id = ANY(?), each
 * statement its own transaction. It has no leases to extend, no handlers, no fencing and no
 * retries: it is what the engine's safety costs are measured against.
 *
 * <p>On H2, whose {@code FOR UPDATE} locks every row it reads, a good loop reads the next 100 ids
 * without locks and claims those still available with a conditional update (as the engine does).
 */
final class ReferenceLoop {
    static final int CLAIM = 100;

    private static final String CLAIM_SQL = "UPDATE cv_job SET state = 'running', epoch = epoch + 1, attempt = attempt + 1, "
            + "lease_owner = ?, lease_expires_at = CURRENT_TIMESTAMP + INTERVAL '30' SECOND, started_at = CURRENT_TIMESTAMP "
            + "WHERE id IN (SELECT id FROM cv_job WHERE state = 'available' AND queue = ? AND run_at <= CURRENT_TIMESTAMP "
            + "ORDER BY run_at, id LIMIT " + CLAIM + " FOR UPDATE SKIP LOCKED)";
    private static final String H2_NEXT_SQL = "SELECT id FROM cv_job WHERE state = 'available' AND queue = ? "
            + "AND run_at <= CURRENT_TIMESTAMP ORDER BY state, queue, run_at, id LIMIT " + CLAIM;
    private static final String H2_CLAIM_SQL = "UPDATE cv_job SET state = 'running', epoch = epoch + 1, attempt = attempt + 1, "
            + "lease_owner = ?, lease_expires_at = CURRENT_TIMESTAMP + INTERVAL '30' SECOND, started_at = CURRENT_TIMESTAMP "
            + "WHERE state = 'available' AND id = ANY(?)";
    private static final String DONE_SQL = "UPDATE cv_job SET state = 'succeeded', finished_at = CURRENT_TIMESTAMP, "
            + "lease_owner = NULL, lease_expires_at = NULL WHERE id = ANY(?)";

    private ReferenceLoop() {
    }

    /** Processes every due job of the queue with {@code threads} threads; returns jobs per second. */
    static double run(BenchDatabase db, String queue, int threads, int expected) throws Exception {
        long[] start = new long[1];
        long done = work(db::connect, db.postgres(), queue, threads, expected, () -> start[0] = System.nanoTime());
        return done * 1e9 / (System.nanoTime() - start[0]);
    }

    /** Opens one connection of a thread of the loop. */
    interface Connect {
        Connection open() throws SQLException;
    }

    /**
     * Processes due jobs of the queue with {@code threads} threads, each on its own connection, once
     * {@code go} has returned (after every thread is connected and ready): {@code expected} jobs in all,
     * or, when negative, until a thread's claim finds nothing due (every job must have been enqueued before
     * {@code go}). Returns the jobs this process marked done.
     */
    static long work(Connect connect, boolean pg, String queue, int threads, long expected, Runnable go)
            throws Exception {
        return work(connect, pg, queue, threads, expected, new AtomicLong(), go);
    }

    /** As {@link #work(Connect, boolean, String, int, long, Runnable)}, counting the jobs marked done into {@code done} as it goes. */
    static long work(Connect connect, boolean pg, String queue, int threads, long expected, AtomicLong done, Runnable go)
            throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch start = new CountDownLatch(1);
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            String owner = "reference-" + t;
            workers[t] = new Thread(() -> {
                try (Connection c = connect.open()) {
                    c.setAutoCommit(true);
                    try (PreparedStatement claim = c.prepareStatement(pg ? CLAIM_SQL : H2_CLAIM_SQL, new String[] {"id"});
                            PreparedStatement next = c.prepareStatement(H2_NEXT_SQL);
                            PreparedStatement finish = c.prepareStatement(DONE_SQL)) {
                        claim.setString(1, owner);
                        if (pg) {
                            claim.setString(2, queue);
                        }
                        next.setString(1, queue);
                        ready.countDown();
                        start.await();
                        while ((expected < 0 || done.get() < expected) && failure.get() == null) {
                            Long[] ids = pg ? claim(claim) : claimH2(c, next, claim);
                            if (ids.length == 0 && expected < 0) {
                                break; // nothing due is left: the others finish what they hold
                            }
                            if (ids.length == 0) {
                                Thread.sleep(1); // the others hold the last rows; they finish soon
                                continue;
                            }
                            Array array = c.createArrayOf(pg ? "int8" : "BIGINT", ids);
                            finish.setArray(1, array);
                            finish.executeUpdate();
                            done.addAndGet(ids.length);
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                    ready.countDown();
                }
            }, "reference-" + t);
            workers[t].start();
        }
        ready.await();
        if (failure.get() == null) {
            go.run();
        }
        start.countDown();
        for (Thread w : workers) {
            w.join();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("reference loop failed: " + failure.get(), failure.get());
        }
        return done.get();
    }

    private static Long[] claimH2(Connection c, PreparedStatement next, PreparedStatement claim) throws SQLException {
        java.util.List<Long> candidates = new java.util.ArrayList<>(CLAIM);
        try (ResultSet rs = next.executeQuery()) {
            while (rs.next()) {
                candidates.add(rs.getLong(1));
            }
        }
        if (candidates.isEmpty()) {
            return new Long[0];
        }
        claim.setArray(2, c.createArrayOf("BIGINT", candidates.toArray()));
        return claim(claim);
    }

    private static Long[] claim(PreparedStatement claim) throws SQLException {
        claim.executeUpdate();
        try (ResultSet rs = claim.getGeneratedKeys()) {
            Long[] buf = new Long[CLAIM];
            int n = 0;
            while (rs.next()) {
                buf[n++] = rs.getLong(1);
            }
            Long[] ids = new Long[n];
            System.arraycopy(buf, 0, ids, 0, n);
            return ids;
        }
    }
}
