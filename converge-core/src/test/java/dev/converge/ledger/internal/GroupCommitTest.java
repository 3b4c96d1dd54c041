package dev.converge.ledger.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.fixture.ScratchDatabase;
import dev.converge.fixture.TestStores;
import dev.converge.store.Store;
import dev.converge.store.StoreException;
import dev.converge.time.EngineClock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Writes made by many threads at once, on a real PostgreSQL: those that arrive while a commit is under way
 * share the next one, each caller gets its own result back only once its row is committed, and a batch that
 * fails leaves each write to its own caller, so that one bad write fails alone.
 */
class GroupCommitTest {
    static final int THREADS = 16;

    ScratchDatabase db;
    Store store;
    /** The size of every transaction that wrote: 1 for a write alone. */
    final List<Integer> commits = new CopyOnWriteArrayList<>();
    /** The size of every batch that began its transaction, committed or not. */
    final List<Integer> batchesBegun = new CopyOnWriteArrayList<>();
    /** Counted down when the first write alone is under way. */
    final CountDownLatch firstUnderWay = new CountDownLatch(1);

    @BeforeEach
    void open() throws Exception {
        db = ScratchDatabase.create("groupcommit");
        store = TestStores.postgres(db, true, EngineClock.database(), THREADS + 4);
        store.withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement("CREATE TABLE gc_row (n INT PRIMARY KEY, v TEXT NOT NULL)")) {
                return ps.executeUpdate();
            }
        });
    }

    @AfterEach
    void close() {
        store.close();
        db.close();
    }

    private static String insert(Connection c, int n) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO gc_row (n, v) VALUES (?, ?) RETURNING v")) {
            ps.setInt(1, n);
            ps.setString(2, "row-" + n);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    /** One leader at a time; the first write alone holds its commit until every other thread has arrived. */
    private GroupCommit<Integer, String> grouped(CountDownLatch othersArrived) {
        return new GroupCommit<>(store, 1, (c, items) -> {
            batchesBegun.add(items.size());
            List<String> out = new ArrayList<>();
            for (int n : items) {
                out.add(insert(c, n));
            }
            commits.add(items.size());
            return out;
        }, n -> store.withConnection(c -> {
            if (firstUnderWay.getCount() > 0) {
                firstUnderWay.countDown();
                await(othersArrived);
            }
            String v = insert(c, n);
            commits.add(1);
            return v;
        }));
    }

    @Test
    void writesArrivingDuringACommitShareTheNextAndEachCallerGetsItsOwnCommittedRow() throws Exception {
        CountDownLatch othersArrived = new CountDownLatch(THREADS - 1);
        GroupCommit<Integer, String> writes = grouped(othersArrived);
        Map<Integer, Boolean> visibleOnReturn = new ConcurrentHashMap<>();
        Map<Integer, Object> got = fromEveryThread(writes, othersArrived, n -> visibleOnReturn.put(n, committed(n)));
        for (int n = 0; n < THREADS; n++) {
            assertThat(got.get(n)).as("the result of write %d, returned to its own caller", n).isEqualTo("row-" + n);
        }
        assertThat(visibleOnReturn.values()).as("every write is committed when its caller gets it back")
                .hasSize(THREADS - 1).containsOnly(true);
        assertThat(commits.stream().mapToInt(Integer::intValue).sum()).as("writes committed").isEqualTo(THREADS);
        assertThat(commits.size()).as("transactions for %d writes: %s", THREADS, commits).isLessThanOrEqualTo(4);
        assertThat(commits).as("the writes that arrived during the first commit went in one").anyMatch(s -> s > 1);
    }

    @Test
    void aBatchThatFailsLeavesEachWriteToItsCallerSoOnlyTheBadOneFails() throws Exception {
        int bad = 7;
        store.withConnection(c -> insert(c, bad)); // its key is taken: its insert fails, alone or in a batch
        CountDownLatch othersArrived = new CountDownLatch(THREADS - 1);
        GroupCommit<Integer, String> writes = grouped(othersArrived);
        Map<Integer, Object> got = fromEveryThread(writes, othersArrived, n -> { });
        for (int n = 0; n < THREADS; n++) {
            if (n == bad) {
                assertThat(got.get(n)).as("the bad write's own caller gets its error").isInstanceOf(StoreException.class);
            } else {
                assertThat(got.get(n)).as("write %d", n).isEqualTo("row-" + n);
            }
        }
        assertThat(batchesBegun).as("the bad write went in a batch with others").anyMatch(s -> s > 1);
        assertThat(commits).as("that batch rolled back, and each of its writes went alone").containsOnly(1);
        assertThat(count()).as("every good row once, the bad key's row as it was").isEqualTo(THREADS);
        assertThat(commits.stream().mapToInt(Integer::intValue).sum()).as("good writes committed").isEqualTo(THREADS - 1);
    }

    @Test
    void aWriteAloneIsItsOwnStatementAndCommitAndItsErrorIsItsCallers() {
        GroupCommit<Integer, String> writes = grouped(new CountDownLatch(0));
        firstUnderWay.countDown();
        assertThat(writes.write(1)).isEqualTo("row-1");
        assertThatThrownBy(() -> writes.write(1)).isInstanceOf(StoreException.class);
        assertThat(commits).containsExactly(1);
    }

    @Test
    void aBatchOfOneStatementWritesGoesInTheOrderGivenAndAnswersEachCallerWithItsOwn() throws Exception {
        CountDownLatch othersArrived = new CountDownLatch(THREADS - 1);
        List<Integer> inBatches = new CopyOnWriteArrayList<>();
        // the order every batch writes in: highest first, so neither the arrival nor the numbers' own order
        GroupCommit<Integer, String> writes = GroupCommit.of(store, 1, java.util.Comparator.<Integer>reverseOrder(),
                (c, n) -> {
                    if (firstUnderWay.getCount() > 0) {
                        firstUnderWay.countDown();
                        await(othersArrived);
                    }
                    if (!c.getAutoCommit()) {
                        inBatches.add(n);
                    }
                    return insert(c, n);
                });
        Map<Integer, Object> got = fromEveryThread(writes, othersArrived, n -> { });
        for (int n = 0; n < THREADS; n++) {
            assertThat(got.get(n)).as("write %d", n).isEqualTo("row-" + n);
        }
        assertThat(inBatches).as("the writes that waited went in one batch, in the order given")
                .hasSize(THREADS - 1).isSortedAccordingTo(java.util.Comparator.reverseOrder());
        assertThat(count()).isEqualTo(THREADS);
    }

    @Test
    void manyWritersThroughManyBatchesEachGetTheirOwnAndNoneIsLeftWaiting() throws Exception {
        int perThread = 150;
        // two leaders, as the ledger runs them, and writers that keep coming: every write comes back, its own
        // (the cases above, with writers that stop arriving, show a batch's end handing the lead on)
        GroupCommit<Integer, String> writes = GroupCommit.of(store, 2, Integer::compare, GroupCommitTest::insert);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        Map<Integer, String> got = new ConcurrentHashMap<>();
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int from = t * perThread;
                done.add(pool.submit(() -> {
                    for (int n = from; n < from + perThread; n++) {
                        got.put(n, writes.write(n));
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(got).hasSize(THREADS * perThread);
        got.forEach((n, v) -> assertThat(v).as("write %d's own result", n).isEqualTo("row-" + n));
        assertThat(count()).isEqualTo(THREADS * perThread);
    }

    @Test
    void aCallerInterruptedWhileItsWriteWaitsGetsItCommittedAndKeepsTheInterrupt() throws Exception {
        CountDownLatch othersArrived = new CountDownLatch(1);
        GroupCommit<Integer, String> writes = grouped(othersArrived);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<?> first = pool.submit(() -> writes.write(0));
            assertThat(firstUnderWay.await(20, TimeUnit.SECONDS)).isTrue();
            CountDownLatch waiting = new CountDownLatch(1);
            Future<Boolean> second = pool.submit(() -> {
                Thread me = Thread.currentThread();
                new Thread(() -> {
                    // interrupted while it waits behind the first write's commit
                    othersArrived.countDown();
                    waiting.countDown();
                    me.interrupt();
                }).start();
                String v = writes.write(1);
                assertThat(v).isEqualTo("row-1");
                return Thread.currentThread().isInterrupted();
            });
            assertThat(waiting.await(20, TimeUnit.SECONDS)).isTrue();
            first.get(30, TimeUnit.SECONDS);
            assertThat(second.get(30, TimeUnit.SECONDS)).as("the interrupt is kept for the caller").isTrue();
            assertThat(committed(1)).isTrue();
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Writes 0 to 15 from a thread each: write 0 first (it goes alone and holds its commit until the others have
     * arrived), then the others at once. Each write's result or error, by its number.
     */
    private Map<Integer, Object> fromEveryThread(GroupCommit<Integer, String> writes, CountDownLatch othersArrived,
            IntConsumer afterOwnWrite) throws Exception {
        Map<Integer, Object> got = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            done.add(pool.submit(() -> write(writes, 0, got)));
            assertThat(firstUnderWay.await(20, TimeUnit.SECONDS)).isTrue();
            for (int i = 1; i < THREADS; i++) {
                int n = i;
                done.add(pool.submit(() -> {
                    othersArrived.countDown();
                    write(writes, n, got);
                    afterOwnWrite.accept(n);
                }));
            }
            for (Future<?> f : done) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        return got;
    }

    private static void write(GroupCommit<Integer, String> writes, int n, Map<Integer, Object> got) {
        try {
            got.put(n, writes.write(n));
        } catch (RuntimeException e) {
            got.put(n, e);
        }
    }

    private boolean committed(int n) {
        try (Connection c = java.sql.DriverManager.getConnection(db.url(), db.user(), null);
                PreparedStatement ps = c.prepareStatement("SELECT 1 FROM gc_row WHERE n = ?")) {
            ps.setInt(1, n);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private long count() {
        return store.withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM gc_row"); ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(20, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the other writers did not arrive");
            }
            Thread.sleep(100); // and queued behind the commit under way
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
