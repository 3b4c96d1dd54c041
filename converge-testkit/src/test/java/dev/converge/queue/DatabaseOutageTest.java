package dev.converge.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.converge.Converge;
import dev.converge.store.Store;
import dev.converge.fixture.ExecutionLog;
import dev.converge.testkit.ScratchDatabase;
import dev.converge.testkit.TestStores;
import dev.converge.time.EngineClock;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The database goes away under a running engine (connections refused and every session killed),
 * then comes back: the engine backs off and says so once, says once that it is back, and every
 * job, before, during and after, is run exactly once.
 */
class DatabaseOutageTest {
    record Work(int n) {
    }

    static final JobType<Work> WORK = JobType.of("outage.work", Work.class);

    @Test
    void workersRideOutAnOutageAndLoseNothing() throws Exception {
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        Logger root = (Logger) LoggerFactory.getLogger("dev.converge");
        root.addAppender(logs);
        ExecutionLog ran = new ExecutionLog();
        List<Long> ids = new ArrayList<>();
        try (ScratchDatabase db = ScratchDatabase.create("cv_outage");
                Store store = TestStores.postgres(db, true, EngineClock.database(), 6);
                Converge engine = Converge.builder(store).queues(q -> q.poll(Duration.ofMillis(200)))
                        .handle(WORK, (w, ctx) -> ran.ran(ctx.jobId())).queue("default", 4).build().start()) {
            ids.addAll(enqueue(engine, 0, 200));
            await().atMost(Duration.ofSeconds(30)).until(() -> engine.stats().succeeded() == 200);

            cutOff(db, true);
            await().atMost(Duration.ofSeconds(30)).until(() -> count(logs, "cannot fetch jobs") == 1);
            Thread.sleep(2_000); // the outage lasts: several more fetches fail meanwhile
            cutOff(db, false);

            ids.addAll(enqueueWhenReachable(engine, 200, 200));
            await().atMost(Duration.ofSeconds(60)).until(() -> engine.stats().succeeded() == 400);
            await().atMost(Duration.ofSeconds(30)).until(() -> count(logs, "database reachable again") == 1);

            ExecutionLog.Report report = ran.check(ids);
            assertThat(report.exactlyOnce()).as(report.toString()).isTrue();
            assertThat(count(logs, "cannot fetch jobs")).as("warned once per state change").isEqualTo(1);
            assertThat(count(logs, "database reachable again")).isEqualTo(1);
            assertThat(count(logs, "notification listener lost its connection")).isEqualTo(1);
        } finally {
            root.detachAppender(logs);
        }
    }

    private static List<Long> enqueue(Converge engine, int from, int n) {
        List<Job<Work>> jobs = new ArrayList<>();
        for (int i = from; i < from + n; i++) {
            jobs.add(Job.of(WORK, new Work(i)));
        }
        List<Long> ids = new ArrayList<>();
        for (long id : engine.enqueueAll(jobs)) {
            ids.add(id);
        }
        return ids;
    }

    /** The caller's side of an outage: it retries its own enqueue until the database answers. */
    private static List<Long> enqueueWhenReachable(Converge engine, int from, int n) throws InterruptedException {
        for (int tries = 0; ; tries++) {
            try {
                return enqueue(engine, from, n);
            } catch (RuntimeException e) {
                if (tries > 100) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    private static long count(ListAppender<ILoggingEvent> logs, String text) {
        List<ILoggingEvent> seen;
        synchronized (logs) { // the appender adds under its own lock while engine threads log
            seen = new ArrayList<>(logs.list);
        }
        return seen.stream().filter(e -> e.getFormattedMessage().contains(text)).count();
    }

    /** Refuses (or allows again) connections to the database, and kills every session it has. */
    private static void cutOff(ScratchDatabase db, boolean off) throws Exception {
        try (Connection c = DriverManager.getConnection(db.adminUrl(), db.user(), null); Statement st = c.createStatement()) {
            st.execute("ALTER DATABASE " + db.name() + " ALLOW_CONNECTIONS " + !off);
            if (off) {
                st.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + db.name() + "'");
            }
        }
    }
}
