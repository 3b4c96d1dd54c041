package dev.converge.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import dev.converge.fixture.ScratchDatabase;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * A rolling deploy migrates the schema while nodes work: here a node runs jobs on the schema of
 * an earlier release (before the queue history table) and keeps enqueueing, and the newer
 * migrations are applied beside it mid-run. Every tenth job fails its first attempt. No job fails
 * for good, none is lost, and the node, started before the history table existed, writes the
 * queue's history once it does, what it counted before included.
 */
class MigrationUnderLoadTest {
    record Work(int n) {
    }

    static final JobType<Work> WORK = JobType.of("migrate-under-load.work", Work.class)
            .withRetry(RetryPolicy.attempts(3).backoff(Duration.ofMillis(20)));
    static final int JOBS = 3_000;
    /** The schema before the queue history table (V13). */
    static final String BEFORE_HISTORY = "12";

    @Test
    void theNewestMigrationAppliedWhileANodeRunsJobsFailsNone() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create("cv_migrate");
                Store store = Store.open(StoreConfig.postgres(db.url()).username(db.user()).migrate(false)
                        .maxPoolSize(8).build())) {
            Flyway.configure().dataSource(store.dataSource()).locations(store.migrationLocation())
                    .table(Store.SCHEMA_HISTORY_TABLE).target(BEFORE_HISTORY).load().migrate();
            assertThat(tableExists(store, "cv_queue_history")).as("the previous release's schema").isFalse();

            AtomicInteger ran = new AtomicInteger();
            try (Converge node = Converge.builder(store).nodeId("previous-schema").queue("default", 4)
                    .queues(q -> q.poll(Duration.ofMillis(50))).leases(l -> l.heartbeat(Duration.ofMillis(300)))
                    .handle(WORK, (w, ctx) -> {
                        if (w.n() % 10 == 0 && ctx.attempt() == 1) {
                            throw new IllegalStateException("first attempt of " + w.n() + " fails");
                        }
                        ran.incrementAndGet();
                    }).build().start()) {
                Thread producer = new Thread(() -> {
                    for (int i = 0; i < JOBS; i++) {
                        node.enqueue(WORK, new Work(i));
                    }
                });
                producer.start();
                await().atMost(Duration.ofSeconds(30)).until(() -> ran.get() > JOBS / 10);
                dev.converge.EngineInternals.runtime(node).history().flush(); // no table yet: carried
                // the newest migration, applied by another node while this one works
                int applied = Flyway.configure().dataSource(store.dataSource()).locations(store.migrationLocation())
                        .table(Store.SCHEMA_HISTORY_TABLE).load().migrate().migrationsExecuted;
                assertThat(applied).isGreaterThanOrEqualTo(1);
                assertThat(ran.get()).as("the migration ran while jobs did").isLessThan(JOBS);
                producer.join();
                await().atMost(Duration.ofSeconds(60)).until(() -> count(store, "succeeded") == JOBS);
                assertThat(count(store, "failed")).isZero();
                // what the node counted before the table existed is in its first row after
                dev.converge.EngineInternals.runtime(node).history().flush();
                long succeeded = node.history("default", Duration.ofHours(1)).stream()
                        .mapToLong(dev.converge.queue.HistoryPoint::succeeded).sum();
                long retried = node.history("default", Duration.ofHours(1)).stream()
                        .mapToLong(dev.converge.queue.HistoryPoint::retried).sum();
                assertThat(succeeded).isEqualTo(JOBS);
                assertThat(retried).isEqualTo(JOBS / 10);
                assertThat(count(store, "failed")).isZero();
            }
        }
    }

    private static boolean tableExists(Store store, String table) {
        return store.withConnection(c -> {
            try (ResultSet rs = c.getMetaData().getTables(null, null, table, null)) {
                return rs.next();
            }
        });
    }

    private static long count(Store store, String state) {
        return store.withConnection(c -> {
            try (Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM cv_job WHERE state = '" + state + "'")) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }
}
