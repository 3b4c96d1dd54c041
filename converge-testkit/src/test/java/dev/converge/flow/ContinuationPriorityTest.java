package dev.converge.flow;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.batch.Batch;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import dev.converge.testkit.SyncHarness;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Finish what you started: a flow's next step is due from the moment its flow began, so under a
 * backlog it runs before the first steps of flows that started after it, not behind all of them.
 */
class ContinuationPriorityTest {
    record Step(String flow, String name) {
    }

    static final JobType<Step> STEP = JobType.of("priority.step", Step.class);
    static final int LATER_FLOWS = 20;

    final List<String> ran = new CopyOnWriteArrayList<>();
    final CountDownLatch firstStepHeld = new CountDownLatch(1);
    final CountDownLatch releaseFirstStep = new CountDownLatch(1);

    SyncHarness harness() {
        // one handler and a fixed prefetch of one: the order of the queue is, but for what is fetched, the order of the work
        return SyncHarness.h2(b -> b.queue("default", 1).queues(q -> q.prefetch(1))
                .handle(FAILING, (s, ctx) -> {
                    throw new IllegalStateException("fails for good");
                })
                .handle(STEP, (s, ctx) -> {
                    if (s.flow().equals("f0") && s.name().equals("a")) {
                        firstStepHeld.countDown();
                        if (!releaseFirstStep.await(30, TimeUnit.SECONDS)) {
                            throw new IllegalStateException("never released");
                        }
                    }
                    if (!s.flow().equals("f0") && s.name().equals("a")) {
                        // a first step takes a while, as real ones do: the outcome of f0's first step (which enqueues
                        // its next) is committed while one of these runs, not after a burst of no-ops
                        Thread.sleep(50);
                    }
                    ran.add(s.flow() + ":" + s.name());
                }));
    }

    static Flow twoSteps(String name) {
        return Flow.of("priority", name).then(Job.of(STEP, new Step(name, "a"))).then(Job.of(STEP, new Step(name, "b")));
    }

    static Flow batchThenStep(String name) {
        return Flow.of("priority", name).then(Job.of(STEP, new Step(name, "a")))
                .then(Batch.named("then").add(Job.of(STEP, new Step(name, "b"))).add(Job.of(STEP, new Step(name, "c"))));
    }

    static Flow oneStepThenReport(String name) {
        return Flow.of("priority", name).then(Job.of(STEP, new Step(name, "a")))
                .onSuccess(Job.of(STEP, new Step(name, "succeeded")));
    }

    static Flow failingStepThenReport(String name) {
        return Flow.of("priority", name).then(Job.of(STEP, new Step(name, "a")))
                .then(Job.of(FAILING, new Step(name, "fails"))).onFailure(Job.of(STEP, new Step(name, "failed")));
    }

    static final JobType<Step> FAILING = JobType.of("priority.failing", Step.class)
            .withRetry(dev.converge.queue.RetryPolicy.attempts(1));

    @Test
    void aFlowsSuccessReportRunsBeforeTheFirstStepsOfNewerFlows() throws InterruptedException {
        runBehindABacklog(ContinuationPriorityTest::oneStepThenReport, "f0:succeeded");
    }

    @Test
    void aFlowsFailureReportRunsBeforeTheFirstStepsOfNewerFlows() throws InterruptedException {
        runBehindABacklog(ContinuationPriorityTest::failingStepThenReport, LATER_FLOWS * 2 + 2, "f0:failed");
    }

    @Test
    void aFlowsNextStepRunsBeforeTheFirstStepsOfNewerFlows() throws InterruptedException {
        runBehindABacklog(ContinuationPriorityTest::twoSteps, "f0:b");
    }

    @Test
    void aBatchThatContinuesAFlowRunsBeforeTheFirstStepsOfNewerFlows() throws InterruptedException {
        runBehindABacklog(ContinuationPriorityTest::batchThenStep, "f0:b", "f0:c");
    }

    private void runBehindABacklog(java.util.function.Function<String, Flow> shape, String... continuation)
            throws InterruptedException {
        runBehindABacklog(shape, LATER_FLOWS * (1 + continuation.length) + 1 + continuation.length, continuation);
    }

    private void runBehindABacklog(java.util.function.Function<String, Flow> shape, int expectedRuns,
            String... continuation) throws InterruptedException {
        try (SyncHarness h = harness()) {
            h.engine().flows().start(shape.apply("f0"));
            assertThat(firstStepHeld.await(20, TimeUnit.SECONDS)).isTrue();
            for (int i = 1; i <= LATER_FLOWS; i++) {
                h.clock().advance(Duration.ofMillis(1)); // every later flow starts after the first
                h.engine().flows().start(shape.apply("f" + i));
            }
            releaseFirstStep.countDown();
            h.runDue();
            h.runDue(); // and the continuations the last round enqueued
            h.runDue(); // and the reports of flows the last round finished
            assertThat(ran).contains(continuation).hasSize(expectedRuns);
            // the jobs the node had already fetched while the first step ran come first; the rest wait behind the
            // continuation (in plain order of arrival it comes after all twenty)
            for (String c : continuation) {
                assertThat(ran.indexOf(c)).as("position of %s in %s", c, ran).isLessThan(1 + LATER_FLOWS / 2);
            }
        }
    }
}
