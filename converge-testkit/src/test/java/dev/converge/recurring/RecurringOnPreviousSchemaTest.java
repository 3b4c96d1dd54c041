package dev.converge.recurring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.Converge;
import dev.converge.queue.JobType;
import dev.converge.store.Store;
import dev.converge.store.StoreConfig;
import dev.converge.testkit.ScratchDatabase;
import java.time.Duration;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * A node of this release beside the previous release's schema (before the pause columns): its
 * recurring jobs are decided and listed as before; pausing is refused with what to do, not
 * half-done; after the migration it pauses.
 */
class RecurringOnPreviousSchemaTest {
    static final JobType<Occurrence> REPORT = JobType.of("rec.previous", Occurrence.class);

    @Test
    void decidesAndListsAndRefusesPauseUntilMigrated() {
        try (ScratchDatabase db = ScratchDatabase.create("cv_rec_prev");
                Store store = Store.open(StoreConfig.postgres(db.url()).username(db.user()).migrate(false).build())) {
            Flyway.configure().dataSource(store.dataSource()).locations(store.migrationLocation())
                    .table(Store.SCHEMA_HISTORY_TABLE).target("13").load().migrate();
            try (Converge engine = Converge.builder(store).declare(REPORT)
                    .recurring(RecurringJob.of(REPORT, Schedule.every(Duration.ofMinutes(1))))
                    .maintenance(m -> m.recurringTick(Duration.ofHours(1))).build()) {
                assertThat(engine.recurring().tick()).isZero();
                RecurringView v = engine.recurring().view("rec.previous").orElseThrow();
                assertThat(v.lastSlot()).isNotNull();
                assertThat(v.paused()).isFalse();
                assertThatThrownBy(() -> engine.recurring().pause("rec.previous", "operator ops-1", "maintenance"))
                        .isInstanceOf(IllegalStateException.class).hasMessageContaining("run the migrations");
                long id = engine.recurring().runNow("rec.previous", "operator ops-1", "by hand");
                assertThat(engine.job(id)).isPresent();

                Flyway.configure().dataSource(store.dataSource()).locations(store.migrationLocation())
                        .table(Store.SCHEMA_HISTORY_TABLE).load().migrate();
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofSeconds(1))
                        .ignoreException(IllegalStateException.class)
                        .until(() -> engine.recurring().pause("rec.previous", "operator ops-1", "maintenance"));
                assertThat(engine.recurring().view("rec.previous").orElseThrow().paused()).isTrue();
            }
        }
    }
}
