package dev.converge.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.flow.Harness;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two writers lock the same two rows in opposite orders, both holding their first row before
 * asking for the second: a real deadlock, which the database breaks by rolling one back. Plain
 * transactions lose the victim's work to an error; retried ones run it again and both get through.
 */
class RetriedTransactionTest {
    interface Runner {
        <T> T run(Store store, SqlWork<T> work);
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void withoutRetryingTheDeadlockVictimFails(String kind) throws Exception {
        try (Harness h = new Harness(kind)) {
            List<Throwable> outcomes = crossedWriters(h.store(), new Runner() {
                @Override
                public <T> T run(Store store, SqlWork<T> work) {
                    return store.inTransaction(work);
                }
            }, new AtomicInteger());

            assertThat(outcomes).filteredOn(o -> o == null).as("one writer got through").hasSize(1);
            assertThat(outcomes).filteredOn(o -> o != null).singleElement()
                    .isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.isRollbackVictim()).isTrue());
            assertThat(values(h.store())).as("only the survivor's increments").containsExactly(1, 1);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aRetriedTransactionRunsAgainAfterBeingTheDeadlockVictim(String kind) throws Exception {
        try (Harness h = new Harness(kind)) {
            AtomicInteger attempts = new AtomicInteger();
            List<Throwable> outcomes = crossedWriters(h.store(), new Runner() {
                @Override
                public <T> T run(Store store, SqlWork<T> work) {
                    return store.inRetriedTransaction(work);
                }
            }, attempts);

            assertThat(outcomes).as("both writers got through").containsOnlyNulls();
            assertThat(attempts).as("the victim ran again").hasValueGreaterThan(2);
            assertThat(values(h.store())).as("each row incremented by both writers, once each").containsExactly(2, 2);
        }
    }

    /** Runs the two crossed writers; returns each one's error, or null if it committed. */
    private static List<Throwable> crossedWriters(Store store, Runner runner, AtomicInteger attempts) throws Exception {
        store.withConnection(c -> {
            try (Statement st = c.createStatement()) {
                st.execute("CREATE TABLE cv_test_crossed (id INT PRIMARY KEY, v INT NOT NULL)");
                st.execute("INSERT INTO cv_test_crossed (id, v) VALUES (1, 0), (2, 0)");
            }
            return null;
        });
        CyclicBarrier bothHoldOneRow = new CyclicBarrier(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<?>> writers = new ArrayList<>();
            for (int[] order : new int[][] {{1, 2}, {2, 1}}) {
                AtomicInteger mine = new AtomicInteger();
                writers.add(pool.submit(() -> runner.run(store, c -> {
                    attempts.incrementAndGet();
                    increment(c, order[0]);
                    if (mine.incrementAndGet() == 1) {
                        awaitQuietly(bothHoldOneRow); // only the first attempt waits for the other
                    }
                    increment(c, order[1]);
                    return null;
                })));
            }
            List<Throwable> outcomes = new ArrayList<>();
            for (Future<?> w : writers) {
                try {
                    w.get(60, TimeUnit.SECONDS);
                    outcomes.add(null);
                } catch (java.util.concurrent.ExecutionException e) {
                    outcomes.add(e.getCause());
                }
            }
            return outcomes;
        } finally {
            pool.shutdownNow();
        }
    }

    private static void awaitQuietly(CyclicBarrier barrier) {
        try {
            barrier.await(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("the other writer never took its first row", e);
        }
    }

    private static void increment(java.sql.Connection c, int id) throws java.sql.SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE cv_test_crossed SET v = v + 1 WHERE id = ?")) {
            ps.setInt(1, id);
            ps.executeUpdate();
        }
    }

    private static List<Integer> values(Store store) {
        return store.withConnection(c -> {
            List<Integer> v = new ArrayList<>();
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT v FROM cv_test_crossed ORDER BY id")) {
                while (rs.next()) {
                    v.add(rs.getInt(1));
                }
            }
            return v;
        });
    }
}
