package dev.converge.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.store.internal.Dialects;
import dev.converge.queue.internal.JobStore;
import dev.converge.queue.internal.LeasedJob;
import dev.converge.queue.internal.NewJob;
import dev.converge.store.Store;
import dev.converge.fixture.TestStores;
import dev.converge.time.EngineClock;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * H2 leases in two steps: it reads the due ids without locks, then takes them with an UPDATE
 * that re-checks each row under its lock. A job released with a backoff between the two steps
 * is no longer due and must not be taken (PostgreSQL's one statement re-checks this by itself).
 */
class H2LeaseRecheckTest {

    @Test
    void aJobReleasedWithBackoffBetweenTheReadAndTheTakeIsNotTakenEarly() {
        try (Store store = TestStores.h2(true, EngineClock.database())) {
            JobStore jobs = new JobStore(Dialects.forUrl(store.config().url(), store.config().schema()));
            long id = store.inTransaction(c -> jobs.insert(c, NewJob.simple("q", "k", "{}", 3), null).id());
            List<LeasedJob> got = store.inTransaction(c -> jobs.lease(releasedMeanwhile(c, id), "q", 10, "node-a",
                    30_000, null));
            assertThat(got).as("jobs leased although their run_at moved into the future before the take").isEmpty();
            assertThat(store.withConnection(c -> jobs.get(c, id)).orElseThrow().state()).isEqualTo(JobState.AVAILABLE);
        }
    }

    /**
     * The connection, except that just before the taking UPDATE is prepared, the job is put back an
     * hour into the future, as a concurrent release with backoff would between the two steps.
     */
    private static Connection releasedMeanwhile(Connection c, long id) {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("prepareStatement") && args[0] instanceof String sql
                            && sql.startsWith("UPDATE cv_job SET state = 'running'")) {
                        try (Statement st = c.createStatement()) {
                            st.executeUpdate("UPDATE cv_job SET run_at = DATEADD(HOUR, 1, CURRENT_TIMESTAMP) WHERE id = " + id);
                        }
                    }
                    try {
                        return method.invoke(c, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
