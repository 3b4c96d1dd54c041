package dev.converge.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.store.internal.Dialects;
import dev.converge.queue.internal.Decision;
import dev.converge.lease.JobLease;
import dev.converge.queue.internal.JobStore;
import dev.converge.queue.internal.LeasedJob;
import dev.converge.queue.internal.NewJob;
import dev.converge.store.Store;
import dev.converge.fixture.ScratchDatabase;
import dev.converge.fixture.TestStores;
import dev.converge.time.EngineClock;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The fetch and the fenced writes of many deliveries at once, on both databases: every column of a
 * leased row arrives, and finishing, putting back and extending answer per delivery, in the caller's
 * order, whether the write landed; a write under an old epoch changes nothing. Nulls among the errors
 * keep the error already on the row.
 */
class FencedWritesTest {

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void writesLandOnlyUnderTheCurrentEpochAndAnswerInTheCallersOrder(String kind) {
        try (ScratchDatabase db = kind.equals("postgres") ? ScratchDatabase.create("cv_fenced") : null;
                Store store = db != null ? TestStores.postgres(db, true, EngineClock.database(), 4)
                        : TestStores.h2(true, EngineClock.database())) {
            JobStore jobs = new JobStore(Dialects.forUrl(store.config().url(), store.config().schema()));
            long timed = store.inTransaction(c -> jobs.insert(c, new NewJob("q", "k.timed", "{\"n\":1}", null, 0, 3,
                    1234L, "key-1", null, null, null, null), null).id());
            for (int i = 0; i < 4; i++) {
                store.inTransaction(c -> jobs.insert(c, NewJob.simple("q", "k", "{}", 1), null));
            }
            List<LeasedJob> leased = store.inTransaction(c -> jobs.lease(c, "q", 10, "node-a", 30_000, null));
            assertThat(leased).hasSize(5);
            leased = leased.stream().sorted(Comparator.comparingLong(LeasedJob::id)).toList();

            LeasedJob t = leased.get(0);
            assertThat(t.id()).isEqualTo(timed);
            assertThat(t.queue()).isEqualTo("q");
            assertThat(t.kind()).isEqualTo("k.timed");
            assertThat(t.payload()).isEqualTo("{\"n\":1}");
            assertThat(t.epoch()).isEqualTo(1);
            assertThat(t.attempt()).isEqualTo(1);
            assertThat(t.maxAttempts()).isEqualTo(3);
            assertThat(t.timeoutMs()).isEqualTo(1234L);
            assertThat(t.batchId()).isNull();
            assertThat(t.chainId()).isNull();
            assertThat(t.chainPos()).isNull();
            assertThat(t.flowId()).isNull();
            assertThat(t.createdAt()).isNotNull();
            assertThat(t.runAt()).isNotNull().isBeforeOrEqualTo(Instant.now().plusSeconds(60));
            assertThat(leased.get(1).timeoutMs()).isNull();

            LeasedJob a = leased.get(0);
            LeasedJob b = leased.get(1);
            LeasedJob c2 = leased.get(2);
            LeasedJob d = leased.get(3);
            LeasedJob e = leased.get(4);
            JobLease stale = new JobLease(b.id(), b.epoch() - 1);

            // the caller's order is not id order; the stale one sits between two that land
            boolean[] finished = store.inTransaction(c -> jobs.finish(c, List.of(
                    new Decision.Finish(c2.lease(), JobState.FAILED, "boom\nsecond line"),
                    new Decision.Finish(stale, JobState.SUCCEEDED, null),
                    new Decision.Finish(a.lease(), JobState.SUCCEEDED, null)), null));
            assertThat(finished).containsExactly(true, false, true);
            assertThat(row(store, jobs, c2.id()).state()).isEqualTo(JobState.FAILED);
            assertThat(row(store, jobs, c2.id()).lastError()).isEqualTo("boom\nsecond line");
            assertThat(row(store, jobs, a.id()).state()).isEqualTo(JobState.SUCCEEDED);
            assertThat(row(store, jobs, a.id()).lastError()).isNull();
            assertThat(row(store, jobs, b.id()).state()).isEqualTo(JobState.RUNNING);

            boolean[] extended = store.inTransaction(c -> jobs.extendLeases(c, List.of(b.lease(),
                    new JobLease(d.id(), d.epoch() + 1), a.lease()), 60_000, null));
            assertThat(extended).as("b still runs; d under another epoch; a finished").containsExactly(true, false, false);

            boolean[] retried = store.inTransaction(c -> jobs.retry(c, List.of(
                    new Decision.Retry(e.lease(), 3_600_000, "try again", false),
                    new Decision.Retry(new JobLease(d.id(), d.epoch() + 1), 0, null, false),
                    new Decision.Retry(d.lease(), 0, null, true),
                    new Decision.Retry(a.lease(), 0, null, false)), null));
            assertThat(retried).containsExactly(true, false, true, false);
            assertThat(row(store, jobs, e.id()).state()).isEqualTo(JobState.AVAILABLE);
            assertThat(row(store, jobs, e.id()).lastError()).isEqualTo("try again");
            assertThat(row(store, jobs, e.id()).attempt()).isEqualTo(1);
            assertThat(row(store, jobs, e.id()).runAt()).isAfter(Instant.now().plusSeconds(1800));
            assertThat(row(store, jobs, d.id()).state()).isEqualTo(JobState.AVAILABLE);
            assertThat(row(store, jobs, d.id()).attempt()).as("refunded").isEqualTo(0);

            // a null error keeps the one already on the row
            LeasedJob again = store.inTransaction(c -> jobs.lease(c, "q", 10, "node-a", 30_000, null)).stream()
                    .filter(j -> j.id() == d.id()).findFirst().orElseThrow();
            assertThat(again.epoch()).isEqualTo(d.epoch() + 1);
            store.inTransaction(c -> jobs.retry(c, List.of(new Decision.Retry(again.lease(), 0, "first", false)), null));
            LeasedJob third = store.inTransaction(c -> jobs.lease(c, "q", 10, "node-a", 30_000, null)).stream()
                    .filter(j -> j.id() == d.id()).findFirst().orElseThrow();
            boolean[] cancelled = store.inTransaction(c -> jobs.finish(c, List.of(new Decision.Finish(third.lease(),
                    JobState.CANCELLED, null)), null));
            assertThat(cancelled).containsExactly(true);
            assertThat(row(store, jobs, d.id()).state()).isEqualTo(JobState.CANCELLED);
            assertThat(row(store, jobs, d.id()).lastError()).isEqualTo("first");
        }
    }

    private static JobRow row(Store store, JobStore jobs, long id) {
        return store.withConnection(c -> jobs.get(c, id)).orElseThrow();
    }
}
