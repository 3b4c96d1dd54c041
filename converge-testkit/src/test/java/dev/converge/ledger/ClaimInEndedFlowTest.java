package dev.converge.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.flow.Flow;
import dev.converge.flow.FlowState;
import dev.converge.flow.Harness;
import dev.converge.queue.Job;
import dev.converge.queue.JobCancelledException;
import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import dev.converge.testkit.leaf.CountingLeaf;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A step whose flow has ended by the time it claims a fresh key is refused before its side effect:
 * a compensation registered now would never run. Nothing of the claim stays behind, neither the
 * ledger row nor the compensation (on PostgreSQL the claim is one statement that checks the flow's
 * state under its shared lock; on H2 a transaction that rolls back).
 */
class ClaimInEndedFlowTest {
    record Step(String key) {
    }

    static final JobType<Step> LATE = JobType.of("claim-ended-flow.late", Step.class).withRetry(RetryPolicy.never());

    final CountingLeaf repos = CountingLeaf.uniqueByKey("claim-ended-flow.repo");

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aClaimForAFlowThatHasEndedIsRefusedAndLeavesNothingBehind(String kind) throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch flowEnded = new CountDownLatch(1);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        try (Harness h = new Harness(kind)) {
            Converge[] self = new Converge[1];
            // the flow's deadline passes while its one step is held: its compensation waits for the running
            // step until its own deadline, then the watchdog ends the flow needing attention
            self[0] = h.engine(b -> b.queue("default", 2).resource(repos).maintenance(m -> m.watchdog(Duration.ofMillis(100)))
                    .ledger(g -> g.compensationDeadlineAtLeast(Duration.ofSeconds(1)))
                    .handle(LATE, (p, ctx) -> {
                        started.countDown();
                        flowEnded.await();
                        try {
                            ctx.ledger().ensure(repos, p.key(), "subject-" + p.key(), Map.of());
                        } catch (RuntimeException e) {
                            thrown.set(e);
                            throw e;
                        }
                    }));
            Converge engine = self[0];
            long flowId = engine.flows().start(Flow.of("claim-ended-flow", kind).deadline(Duration.ofSeconds(1))
                    .then(Job.of(LATE, new Step("late-1")))).flowId();
            assertThat(started.await(20, TimeUnit.SECONDS)).isTrue();
            try {
                await().atMost(Duration.ofSeconds(20)).until(() -> engine.flows().get(flowId).orElseThrow().state()
                        == FlowState.NEEDS_ATTENTION);
            } finally {
                flowEnded.countDown();
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> thrown.get() != null);
            assertThat(thrown.get()).isInstanceOf(JobCancelledException.class).hasMessageContaining("has already ended");
            assertThat(engine.ledger().entriesOfFlow(flowId)).as("ledger rows of the flow").isEmpty();
            assertThat(engine.ledger().entry(repos.kind(), "late-1")).as("ledger row of a refused claim").isEmpty();
            assertThat(engine.flows().compensations(flowId)).as("compensations of a refused claim").isEmpty();
            assertThat(repos.totalCreates()).as("creates sent for a flow that had ended").isZero();
        }
    }
}
