package dev.converge.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.chain.Chain;
import dev.converge.queue.Job;
import dev.converge.queue.JobRow;
import dev.converge.queue.JobState;
import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The synchronous harness: due work settles before the call returns, and only the test moves time. */
class SyncHarnessTest {
    record Step(String name) {
    }

    static final JobType<Step> STEP = JobType.of("sync.step", Step.class);
    static final JobType<Step> FLAKY = JobType.of("sync.flaky", Step.class)
            .withRetry(RetryPolicy.attempts(3).backoff(Duration.ofSeconds(30)).jitter(0));

    final List<String> ran = new CopyOnWriteArrayList<>();
    final AtomicInteger flakyCalls = new AtomicInteger();

    SyncHarness harness() {
        return SyncHarness.h2(b -> b.queue("default", 2)
                .handle(STEP, (s, ctx) -> ran.add(s.name()))
                .handle(FLAKY, (s, ctx) -> {
                    if (flakyCalls.incrementAndGet() == 1) {
                        throw new IllegalStateException("first attempt fails");
                    }
                    ran.add(s.name());
                }));
    }

    @Test
    void aJobIsWorkedBeforeWorkReturns() {
        try (SyncHarness h = harness()) {
            JobRow row = h.work(Job.of(STEP, new Step("a")));
            assertThat(row.state()).isEqualTo(JobState.SUCCEEDED);
            assertThat(ran).containsExactly("a");
        }
    }

    @Test
    void aRetryWaitsForTheClockNotForTheWallClock() {
        try (SyncHarness h = harness()) {
            JobRow first = h.work(Job.of(FLAKY, new Step("flaky")));
            assertThat(first.state()).isEqualTo(JobState.AVAILABLE); // backing off for 30 s of the harness's time
            assertThat(h.runDue()).isZero();
            assertThat(h.advance(Duration.ofSeconds(29))).as("still backing off").isZero();
            assertThat(h.advance(Duration.ofSeconds(1))).isEqualTo(1);
            assertThat(h.state(first.id())).isEqualTo(JobState.SUCCEEDED);
            assertThat(ran).containsExactly("flaky");
        }
    }

    @Test
    void aDelayedJobRunsWhenTheClockReachesIt() {
        try (SyncHarness h = harness()) {
            long id = h.engine().enqueue(Job.of(STEP, new Step("later")).delay(Duration.ofMinutes(5))).jobId();
            assertThat(h.runDue()).isZero();
            assertThat(ran).isEmpty();
            h.advance(Duration.ofMinutes(5));
            assertThat(h.state(id)).isEqualTo(JobState.SUCCEEDED);
        }
    }

    @Test
    void whatAChainEnqueuesAsItAdvancesSettlesInTheSameCall() {
        try (SyncHarness h = harness()) {
            h.engine().chains().start(Chain.named("abc").then(Job.of(STEP, new Step("1")))
                    .then(Job.of(STEP, new Step("2"))).then(Job.of(STEP, new Step("3"))));
            assertThat(h.runDue()).isEqualTo(3);
            assertThat(ran).containsExactly("1", "2", "3");
        }
    }

    /** The engine's threads may settle a job before the test's step begins: the step still counts it. */
    @Test
    void aJobThatSettledBeforeTheStepBeganCountsInIt() {
        try (SyncHarness h = harness()) {
            long id = h.engine().enqueue(Job.of(STEP, new Step("quick"))).jobId();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> h.state(id) == JobState.SUCCEEDED);
            assertThat(h.runDue()).isEqualTo(1);
            assertThat(h.runDue()).as("counted once").isZero();
        }
    }
}
