package dev.converge.queue.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.store.internal.Dialects;
import dev.converge.queue.JobRow;
import dev.converge.store.Store;
import dev.converge.fixture.ScratchDatabase;
import dev.converge.fixture.TestStores;
import dev.converge.time.EngineClock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * On PostgreSQL with the database clock, a job that stands alone is inserted by a statement of
 * its own (positional parameters, RETURNING id). Its rows must be the rows the general statement
 * writes for the same job, field by field, and a taken unique key must still come back as the
 * existing job.
 */
class StandaloneInsertTest {
    @Test
    void writesTheRowTheGeneralStatementWrites() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create("cv_alone");
                Store store = TestStores.postgres(db, true, EngineClock.database(), 2)) {
            JobStore jobs = new JobStore(Dialects.forUrl(store.config().url(), store.config().schema()));
            Instant at = Instant.now().plus(Duration.ofHours(3)).truncatedTo(ChronoUnit.MICROS);
            List<NewJob> variants = List.of(
                    NewJob.simple("q1", "k.plain", "{\"n\":1}", 25),
                    new NewJob("q2", "k.at", "{\"n\":2}", at, 0, 3, 1234L, null, null, null, null, null),
                    new NewJob("q3", "k.delay", "{\"n\":3}", null, 90_000, 7, null, null, null, null, null, null));
            int n = 0;
            for (NewJob job : variants) {
                String trace = n++ % 2 == 0 ? null : "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
                jobs.traceParentFrom(() -> trace);
                long fast;
                long general;
                try (Connection c = store.dataSource().getConnection()) {
                    JobStore.Inserted a = jobs.insert(c, job, null);
                    JobStore.Inserted b = jobs.insertNotifying(c, job, null, JobStore.CHANNEL);
                    assertThat(a.duplicate()).isFalse();
                    assertThat(b.duplicate()).isFalse();
                    fast = a.id();
                    general = b.id();
                    assertThat(fast).isNotEqualTo(general);
                    JobRow x = jobs.get(c, fast).orElseThrow();
                    JobRow y = jobs.get(c, general).orElseThrow();
                    assertThat(x).usingRecursiveComparison().ignoringFields("id", "runAt", "createdAt").isEqualTo(y);
                    assertThat(x.createdAt()).isCloseTo(Instant.now(), within(Duration.ofMinutes(1)));
                    for (JobRow r : List.of(x, y)) {
                        if (job.runAt() != null) {
                            assertThat(r.runAt()).isEqualTo(job.runAt());
                        } else {
                            assertThat(Duration.between(r.createdAt(), r.runAt())).isEqualTo(Duration.ofMillis(job.delayMs()));
                        }
                    }
                    assertThat(timeoutOf(c, fast)).isEqualTo(timeoutOf(c, general)).isEqualTo(job.timeoutMs());
                    assertThat(jobs.traceParentOf(c, fast)).isEqualTo(jobs.traceParentOf(c, general))
                            .isEqualTo(java.util.Optional.ofNullable(trace));
                }
            }
        }
    }

    @Test
    void aTakenUniqueKeyGivesTheExistingJob() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create("cv_alone_key");
                Store store = TestStores.postgres(db, true, EngineClock.database(), 2)) {
            JobStore jobs = new JobStore(Dialects.forUrl(store.config().url(), store.config().schema()));
            NewJob job = NewJob.simple("q", "k", "{}", 5).withUniqueKey("only-one");
            try (Connection c = store.dataSource().getConnection()) {
                JobStore.Inserted first = jobs.insert(c, job, null);
                JobStore.Inserted second = jobs.insert(c, job.withUniqueKey("only-one"), null);
                assertThat(first.duplicate()).isFalse();
                assertThat(second.duplicate()).isTrue();
                assertThat(second.id()).isEqualTo(first.id());
                assertThat(jobs.byUniqueKey(c, "only-one").orElseThrow().id()).isEqualTo(first.id());
                // the connection is still usable: the conflict aborted nothing
                assertThat(jobs.insert(c, NewJob.simple("q", "k", "{}", 5), null).duplicate()).isFalse();
            }
        }
    }

    private static Long timeoutOf(Connection c, long id) throws Exception {
        try (PreparedStatement ps = c.prepareStatement("SELECT timeout_ms FROM cv_job WHERE id = ?")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                long v = rs.getLong(1);
                return rs.wasNull() ? null : v;
            }
        }
    }

    private static org.assertj.core.data.TemporalUnitOffset within(Duration d) {
        return new org.assertj.core.data.TemporalUnitWithinOffset(d.toMillis(), ChronoUnit.MILLIS);
    }
}
