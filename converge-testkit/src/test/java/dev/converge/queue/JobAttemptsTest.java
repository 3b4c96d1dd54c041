package dev.converge.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.store.Store;
import dev.converge.testkit.ScratchDatabase;
import dev.converge.time.EngineClock;
import dev.converge.testkit.TestStores;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A job's attempts are there to read after the fact: each one that failed with its node, start,
 * end, outcome and whole error, and the last one on the job's row with the node that ran it.
 */
class JobAttemptsTest {
    record Work(int n) {
    }

    static final JobType<Work> FLAKY = JobType.of("attempts.flaky", Work.class)
            .withRetry(RetryPolicy.attempts(5).backoff(Duration.ofMillis(10)));
    static final JobType<Work> BROKEN = JobType.of("attempts.broken", Work.class)
            .withRetry(RetryPolicy.attempts(2).backoff(Duration.ofMillis(10)));
    static final JobType<Work> FINE = JobType.of("attempts.fine", Work.class);

    @Test
    void onH2() {
        try (Store store = TestStores.h2(true, EngineClock.database())) {
            recordsTheAttemptsThatFailed(store);
        }
    }

    @Test
    void onPostgres() {
        try (ScratchDatabase db = ScratchDatabase.create("cv_attempts");
                Store store = TestStores.postgres(db, true, EngineClock.database(), 4)) {
            recordsTheAttemptsThatFailed(store);
        }
    }

    /** A node stalls past its lease; another rescues and runs the job: the first attempt is the stalled node's. */
    @Test
    void anExpiredLeaseIsTheAttemptOfTheNodeThatHeldIt() throws Exception {
        dev.converge.testkit.SettableClock clock = dev.converge.testkit.SettableClock.atNow();
        java.util.concurrent.CountDownLatch stalled = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch wake = new java.util.concurrent.CountDownLatch(1);
        try (Store store = TestStores.h2(true, clock);
                Converge slow = Converge.builder(store).nodeId("stalled").leases(l -> l.duration(Duration.ofSeconds(30))
                                .heartbeat(Duration.ofSeconds(15)).rescue(Duration.ofMillis(100)))
                        .queues(q -> q.poll(Duration.ofMillis(100))
                                .prefetch(0)).handle(FINE, (w, ctx) -> {
                            stalled.countDown();
                            wake.await();
                        }).queue("default", 1).build().start()) {
            long id = slow.enqueue(FINE, new Work(1)).jobId();
            assertThat(stalled.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            try (Converge rescuer = Converge.builder(store).nodeId("rescuer").leases(l -> l.rescue(Duration.ofMillis(100)))
                    .queues(q -> q.poll(Duration.ofMillis(100))).handle(FINE, (w, ctx) -> { }).queue("default", 1).build().start()) {
                clock.advance(Duration.ofSeconds(31));
                await().atMost(Duration.ofSeconds(10)).until(() -> rescuer.job(id).orElseThrow().state()
                        == JobState.SUCCEEDED);
                List<JobAttempt> a = rescuer.attempts(id);
                assertThat(a).extracting(JobAttempt::nodeId).containsExactly("stalled");
                assertThat(a).extracting(JobAttempt::outcome).containsExactly("expired");
                assertThat(a.get(0).error()).contains("lease expired");
                assertThat(rescuer.job(id).orElseThrow().leaseOwner()).isEqualTo("rescuer");
            } finally {
                wake.countDown();
            }
        }
    }

    /**
     * An attempt whose handler released the job without a refund (a leaf that throttled it) is spent, so it is
     * in the history too: a job's recorded attempts have no gaps. Its wait does not count as a failure's.
     */
    @Test
    void aReleasedAttemptIsRecordedAndDoesNotLengthenTheNextWait() throws Exception {
        dev.converge.testkit.SettableClock clock = new dev.converge.testkit.SettableClock(
                java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
        JobType<Work> throttled = JobType.of("attempts.throttled", Work.class)
                .withRetry(RetryPolicy.attempts(10).backoff(Duration.ofSeconds(60)).cappedAt(Duration.ofHours(1)).jitter(0));
        AtomicInteger runs = new AtomicInteger();
        java.util.concurrent.atomic.AtomicReference<java.time.Instant> failedAt = new java.util.concurrent.atomic.AtomicReference<>();
        try (Store store = TestStores.h2(true, clock);
                Converge engine = Converge.builder(store).nodeId("node-a").queues(q -> q.poll(Duration.ofMillis(50)))
                        .handle(throttled, (w, ctx) -> {
                            if (runs.incrementAndGet() == 1) {
                                ctx.release(Duration.ofSeconds(5)); // the leaf said 429: come back in 5 s
                                return;
                            }
                            failedAt.set(clock.sqlNow());
                            throw new IllegalStateException("the leaf answered 503");
                        }).queue("default", 1).build().start()) {
            long id = engine.enqueue(throttled, new Work(1)).jobId();
            await().atMost(Duration.ofSeconds(10)).until(() -> engine.attempts(id).size() == 1);
            clock.advance(Duration.ofSeconds(6));
            await().atMost(Duration.ofSeconds(10)).until(() -> engine.attempts(id).size() == 2);
            List<JobAttempt> a = engine.attempts(id);
            assertThat(a).extracting(JobAttempt::attempt).containsExactly(1, 2);
            assertThat(a).extracting(JobAttempt::outcome).containsExactly("released", "retried");
            assertThat(a.get(0).error()).contains("released by its handler").contains("5000 ms");
            JobRow row = engine.job(id).orElseThrow();
            assertThat(row.attempt()).isEqualTo(2);
            assertThat(Duration.between(failedAt.get(), row.runAt())).as("the first failure: the first backoff")
                    .isEqualTo(Duration.ofSeconds(60));
        }
    }

    private static void recordsTheAttemptsThatFailed(Store store) {
        AtomicInteger flakyRuns = new AtomicInteger();
        try (Converge engine = Converge.builder(store).nodeId("node-a").queues(q -> q.poll(Duration.ofMillis(50)))
                .handle(FLAKY, (w, ctx) -> {
                    if (flakyRuns.incrementAndGet() <= 2) {
                        throw new IllegalStateException("leaf said no, run " + flakyRuns.get());
                    }
                })
                .handle(BROKEN, (w, ctx) -> {
                    throw new IllegalArgumentException("never works\n\tat somewhere.deep(Here.java:1)");
                })
                .handle(FINE, (w, ctx) -> { })
                .queue("default", 2).build().start()) {
            long flaky = engine.enqueue(FLAKY, new Work(1)).jobId();
            long broken = engine.enqueue(BROKEN, new Work(2)).jobId();
            long fine = engine.enqueue(FINE, new Work(3)).jobId();
            await().atMost(Duration.ofSeconds(20)).until(() -> List.of(flaky, broken, fine).stream()
                    .allMatch(id -> engine.job(id).orElseThrow().state().isTerminal()));

            List<JobAttempt> a = engine.attempts(flaky);
            assertThat(a).extracting(JobAttempt::attempt).containsExactly(1, 2);
            assertThat(a).extracting(JobAttempt::outcome).containsOnly("retried");
            assertThat(a).extracting(JobAttempt::nodeId).containsOnly("node-a");
            assertThat(a.get(0).error()).contains("leaf said no, run 1");
            assertThat(a.get(1).error()).contains("leaf said no, run 2");
            assertThat(a).allSatisfy(x -> {
                assertThat(x.startedAt()).isNotNull();
                assertThat(x.finishedAt()).isAfterOrEqualTo(x.startedAt());
            });
            JobRow flakyRow = engine.job(flaky).orElseThrow();
            assertThat(flakyRow.state()).isEqualTo(JobState.SUCCEEDED);
            assertThat(flakyRow.attempt()).isEqualTo(3);
            assertThat(flakyRow.leaseOwner()).as("the node that ran its last attempt").isEqualTo("node-a");

            List<JobAttempt> b = engine.attempts(broken);
            assertThat(b).extracting(JobAttempt::outcome).containsExactly("retried", "failed");
            assertThat(b.get(1).error()).as("the whole error, its trace included").contains("never works")
                    .contains("somewhere.deep");

            assertThat(engine.attempts(fine)).as("a job that succeeded first time costs no attempt row").isEmpty();
            assertThat(engine.job(fine).orElseThrow().leaseOwner()).isEqualTo("node-a");
        }
    }
}
