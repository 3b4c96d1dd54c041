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
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The listening connection returns a notification without the driver's 1 ms look for more: pgjdbc
 * reads with a 1 ms socket timeout after every notification (and on every call when nothing is
 * pending), which was a millisecond on every pickup. And nothing is lost by not looking.
 */
class PgListenerLookAheadTest {
    private static final int CALLS = 100;

    @Test
    void aListeningConnectionReturnsWithoutTheDriversOneMillisecondLook() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create("cv_lookahead");
                Store store = TestStores.postgres(db, true, EngineClock.database(), 2);
                Connection c = store.dedicatedConnection()) {
            try (Statement st = c.createStatement()) {
                st.execute("LISTEN cv_lookahead");
            }
            assertThat(PgListener.skipDriverLookAhead(c)).isTrue();
            PGConnection pg = c.unwrap(PGConnection.class);
            long start = System.nanoTime();
            for (int i = 0; i < CALLS; i++) {
                assertThat(pg.getNotifications()).isNullOrEmpty();
            }
            double ms = (System.nanoTime() - start) / 1e6;
            // with the look, each call waits out a 1 ms socket timeout: at least CALLS ms in all
            assertThat(ms).as("%d calls with nothing pending took %.1f ms", CALLS, ms).isLessThan(CALLS / 2.0);
        }
    }

    @Test
    void notificationsSentBackToBackAllArrive() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create("cv_lookahead");
                Store store = TestStores.postgres(db, true, EngineClock.database(), 2);
                Connection listening = store.dedicatedConnection();
                Connection sending = store.dedicatedConnection()) {
            try (Statement st = listening.createStatement()) {
                st.execute("LISTEN cv_lookahead");
            }
            assertThat(PgListener.skipDriverLookAhead(listening)).isTrue();
            try (Statement st = sending.createStatement()) {
                for (int i = 0; i < 20; i++) {
                    st.execute("SELECT pg_notify('cv_lookahead', '" + i + "')");
                }
            }
            PGConnection pg = listening.unwrap(PGConnection.class);
            List<String> got = new ArrayList<>();
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (got.size() < 20 && System.nanoTime() < deadline) {
                PGNotification[] notes = pg.getNotifications(500);
                if (notes != null) {
                    for (PGNotification n : notes) {
                        got.add(n.getParameter());
                    }
                }
            }
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                expected.add(Integer.toString(i));
            }
            assertThat(got).containsExactlyElementsOf(expected);
        }
    }
}
