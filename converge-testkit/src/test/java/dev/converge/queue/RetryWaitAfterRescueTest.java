package dev.converge.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.store.Store;
import dev.converge.testkit.ScratchDatabase;
import dev.converge.testkit.SettableClock;
import dev.converge.testkit.TestStores;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The wait before a retry grows with the attempts that failed, not with those whose node died (an
 * expired lease): a job whose first worker was killed and whose next attempt then meets a leaf's
 * error waits the policy's first backoff, not its second. Attempts of both kinds still count toward
 * the policy's maximum.
 */
class RetryWaitAfterRescueTest {
    record Work(int n) {
    }

    static final JobType<Work> STEP = JobType.of("retrywait.step", Work.class)
            .withRetry(RetryPolicy.attempts(10).backoff(Duration.ofSeconds(60)).cappedAt(Duration.ofHours(1)).jitter(0));

    @Test
    void onH2() throws Exception {
        SettableClock clock = new SettableClock(Instant.now().truncatedTo(ChronoUnit.MILLIS));
        try (Store store = TestStores.h2(true, clock)) {
            aFailureAfterAnExpiredLeaseWaitsTheFirstBackoff(store, clock);
        }
    }

    @Test
    void onPostgres() throws Exception {
        SettableClock clock = new SettableClock(Instant.now().truncatedTo(ChronoUnit.MILLIS));
        try (ScratchDatabase db = ScratchDatabase.create("cv_retrywait");
                Store store = TestStores.postgres(db, true, clock, 4)) {
            aFailureAfterAnExpiredLeaseWaitsTheFirstBackoff(store, clock);
        }
    }

    private static void aFailureAfterAnExpiredLeaseWaitsTheFirstBackoff(Store store, SettableClock clock)
            throws Exception {
        CountDownLatch stalled = new CountDownLatch(1);
        CountDownLatch wake = new CountDownLatch(1);
        AtomicReference<Instant> failedAt = new AtomicReference<>();
        try (Converge slow = Converge.builder(store).nodeId("killed").leases(l -> l.duration(Duration.ofSeconds(30))
                                .heartbeat(Duration.ofSeconds(15)).rescue(Duration.ofMillis(100)))
                        .queues(q -> q.poll(Duration.ofMillis(100)).prefetch(0)).handle(STEP, (w, ctx) -> {
                            stalled.countDown();
                            wake.await();
                        }).queue("default", 1).build().start()) {
            long id = slow.enqueue(STEP, new Work(1)).jobId();
            assertThat(stalled.await(10, TimeUnit.SECONDS)).isTrue();
            try (Converge rescuer = Converge.builder(store).nodeId("rescuer").leases(l -> l.rescue(Duration.ofMillis(100)))
                    .queues(q -> q.poll(Duration.ofMillis(100))).handle(STEP, (w, ctx) -> {
                        failedAt.set(clock.sqlNow());
                        throw new IllegalStateException("the leaf answered 503");
                    }).queue("default", 1).build().start()) {
                clock.advance(Duration.ofSeconds(31));
                await().atMost(Duration.ofSeconds(10)).until(() -> rescuer.attempts(id).size() == 2);
                List<JobAttempt> attempts = rescuer.attempts(id);
                assertThat(attempts).extracting(JobAttempt::outcome).containsExactly("expired", "retried");
                JobRow row = rescuer.job(id).orElseThrow();
                assertThat(row.state()).isEqualTo(JobState.AVAILABLE);
                assertThat(row.attempt()).as("both attempts count toward the maximum").isEqualTo(2);
                assertThat(Duration.between(failedAt.get(), row.runAt()))
                        .as("one failure so far: the first backoff, as if the killed attempt had not been")
                        .isEqualTo(Duration.ofSeconds(60));

                // a second failure doubles it: the failures are what the wait counts
                clock.advance(Duration.ofSeconds(61));
                await().atMost(Duration.ofSeconds(10)).until(() -> rescuer.attempts(id).size() == 3);
                JobRow again = rescuer.job(id).orElseThrow();
                assertThat(again.attempt()).isEqualTo(3);
                assertThat(Duration.between(failedAt.get(), again.runAt())).isEqualTo(Duration.ofSeconds(120));
            } finally {
                wake.countDown();
            }
        }
    }
}
