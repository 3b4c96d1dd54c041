package dev.converge.queue.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.store.Store;
import dev.converge.fixture.ScratchDatabase;
import dev.converge.fixture.TestStores;
import dev.converge.time.EngineClock;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The notifier sends at most one notification per gap ({@link Notifier#MIN_GAP_NANOS}) however fast
 * enqueues commit, and still announces every queue after its last enqueue; a queue idle for
 * longer is announced at once.
 */
class NotifierPacingTest {
    private static final String CHANNEL = "cv_pace";
    private static final long BURST_MS = 300;

    @Test
    void aStreamOfEnqueuesIsAnnouncedAtMostOncePerGapAndItsLastQueueIsAnnounced() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create("cv_pace");
                Store store = TestStores.postgres(db, true, EngineClock.database(), 4);
                Connection listening = store.dedicatedConnection()) {
            listen(listening);
            // a gap far longer than a send, so that back-to-back sends would show even on a cold JVM
            long gap = TimeUnit.MILLISECONDS.toNanos(20);
            Notifier notifier = new Notifier(store, CHANNEL, gap);
            try {
                long start = System.nanoTime();
                long end = start + TimeUnit.MILLISECONDS.toNanos(BURST_MS);
                List<Thread> threads = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    Thread th = new Thread(() -> {
                        while (System.nanoTime() < end) {
                            notifier.later("q");
                            LockSupport.parkNanos(20_000);
                        }
                    });
                    threads.add(th);
                    th.start();
                }
                for (Thread th : threads) {
                    th.join();
                }
                notifier.later("last");
                double elapsedMs = (System.nanoTime() - start) / 1e6;
                List<String> got = drain(listening, "last", 10_000);
                long gapMs = TimeUnit.NANOSECONDS.toMillis(gap);
                assertThat(got).as("the queue enqueued last is announced").contains("last");
                assertThat(got).as("the stream's queue is announced").contains("q");
                // one notification per gap at most, over the burst and the drain that follows it
                assertThat(got.size()).as("%d notifications for %.0f ms of enqueues", got.size(), elapsedMs)
                        .isLessThanOrEqualTo((int) (elapsedMs / gapMs) + 3);
            } finally {
                notifier.close();
            }
        }
    }

    @Test
    void aQueueIdleForLongerThanTheGapIsAnnouncedAtOnce() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create("cv_pace_idle");
                Store store = TestStores.postgres(db, true, EngineClock.database(), 4);
                Connection listening = store.dedicatedConnection()) {
            listen(listening);
            Notifier notifier = new Notifier(store, CHANNEL);
            try {
                PGConnection pg = listening.unwrap(PGConnection.class);
                double[] ms = new double[20];
                for (int i = 0; i < ms.length; i++) {
                    Thread.sleep(20);
                    long before = System.nanoTime();
                    notifier.later("q" + i);
                    PGNotification[] notes = pg.getNotifications(10_000);
                    ms[i] = (System.nanoTime() - before) / 1e6;
                    assertThat(notes).extracting(PGNotification::getParameter).containsExactly("q" + i);
                }
                java.util.Arrays.sort(ms);
                assertThat(ms[ms.length / 2]).as("median of %s ms", java.util.Arrays.toString(ms)).isLessThan(100);
            } finally {
                notifier.close();
            }
        }
    }

    private static void listen(Connection c) throws Exception {
        try (Statement st = c.createStatement()) {
            st.execute("LISTEN " + CHANNEL);
        }
    }

    /** Notifications until {@code until} has come and 100 ms have passed with none more. */
    private static List<String> drain(Connection c, String until, long timeoutMs) throws Exception {
        PGConnection pg = c.unwrap(PGConnection.class);
        List<String> got = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (System.nanoTime() < deadline) {
            PGNotification[] notes = pg.getNotifications(100);
            if (notes == null || notes.length == 0) {
                if (got.contains(until)) {
                    break;
                }
                continue;
            }
            for (PGNotification n : notes) {
                got.add(n.getParameter());
            }
        }
        return got;
    }
}
