package dev.converge.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A compensating flow has a way out: when its compensation cannot finish (here it waits on a
 * step that hangs under a live lease) past the flow's own deadline, the watchdog ends it
 * {@code needs_attention} with the reason, through the same terminal path as compensation.
 */
class CompensationDeadlineTest {
    record Step(String name) {
    }

    static final JobType<Step> HANGS = JobType.of("comp-deadline.hangs", Step.class).withRetry(RetryPolicy.never());
    static final JobType<Step> UNDO = JobType.of("comp-deadline.undo", Step.class);
    static final JobType<Step> REPORT = JobType.of("comp-deadline.report", Step.class);

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aCompensationPastTheFlowsDeadlineEndsNeedingAttention(String kind) throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch hung = new CountDownLatch(1);
        CountDownLatch reported = new CountDownLatch(1);
        try (Harness h = new Harness(kind)) {
            Converge[] self = new Converge[1];
            self[0] = h.engine(b -> b.queue("default", 2).maintenance(m -> m.watchdog(Duration.ofMillis(100))).ledger(g -> g.compensationDeadlineAtLeast(Duration.ofSeconds(1)))
                    .handle(HANGS, (p, ctx) -> {
                        ctx.flows().compensateWith(Job.of(UNDO, p));
                        started.countDown();
                        hung.await(); // a leaf call that never answers; the heartbeat keeps the lease
                    })
                    .handle(UNDO, (p, ctx) -> { })
                    .handle(REPORT, (p, ctx) -> reported.countDown()));
            try {
                long id = self[0].flows().start(Flow.of("comp-deadline", kind).deadline(Duration.ofSeconds(1))
                        .then(Job.of(HANGS, new Step("repo"))).onFailure(Job.of(REPORT, new Step("failed")))).flowId();
                assertThat(started.await(20, TimeUnit.SECONDS)).isTrue();
                await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(self[0].flows().get(id)
                        .orElseThrow().state()).as("state of a flow whose compensation cannot finish")
                        .isEqualTo(FlowState.NEEDS_ATTENTION));
                List<FlowEvent> history = self[0].flows().history(id);
                assertThat(history).extracting(FlowEvent::to).containsExactly(FlowState.RUNNING, FlowState.COMPENSATING,
                        FlowState.NEEDS_ATTENTION);
                assertThat(history.get(2).reason()).contains("deadline").contains("1 compensation(s) not done")
                        .contains("1 step(s) still running");
                assertThat(self[0].flows().get(id).orElseThrow().attention()).contains("deadline");
                assertThat(reported.await(10, TimeUnit.SECONDS)).as("the failure was reported").isTrue();
            } finally {
                hung.countDown();
            }
        }
    }
}
