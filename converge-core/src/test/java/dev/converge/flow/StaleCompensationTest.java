package dev.converge.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.flow.internal.FlowTracker;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import dev.converge.queue.NonRetryableException;
import dev.converge.queue.RetryPolicy;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A compensating delivery whose lease moved on (it was paused, and the job was taken over) must
 * not write the compensation's outcome: a stale failure must neither spend an attempt nor give
 * the compensation up, which would send the flow to needs_attention for nothing.
 */
class StaleCompensationTest {
    record Step(String name) {
    }

    static final JobType<Step> STEP = JobType.of("stale-comp.step", Step.class).withRetry(RetryPolicy.never());
    static final JobType<Step> UNDO = JobType.of("stale-comp.undo", Step.class);

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aStaleCompensateDeliveryCannotSpendAttemptsOrGiveUp(String kind) throws Exception {
        CountDownLatch undoStarted = new CountDownLatch(1);
        CountDownLatch leafAnswers = new CountDownLatch(1);
        try (Harness h = new Harness(kind)) {
            Converge[] self = new Converge[1];
            self[0] = h.engine(b -> b.queue("default", 2)
                    .handle(STEP, (p, ctx) -> {
                        ctx.flows().compensateWith(Job.of(UNDO, p));
                        throw new NonRetryableException("the leaf refused " + p.name());
                    })
                    .handle(UNDO, (p, ctx) -> {
                        undoStarted.countDown();
                        leafAnswers.await();
                        throw new IllegalStateException("the leaf is down");
                    }));
            long id = self[0].flows().start(Flow.of("stale-comp", kind).then(Job.of(STEP, new Step("repo")))).flowId();
            assertThat(undoStarted.await(20, TimeUnit.SECONDS)).isTrue();
            // the compensating delivery is now stale: another delivery holds its job (a newer
            // epoch); its compensation has one attempt left (the harness allows 3)
            h.store().withConnection(c -> {
                try (Statement st = c.createStatement()) {
                    st.executeUpdate("UPDATE cv_job SET epoch = epoch + 1 WHERE kind = '" + FlowTracker.COMPENSATE_KIND + "'");
                    st.executeUpdate("UPDATE cv_compensation SET attempts = 2 WHERE flow_id = " + id);
                }
                return null;
            });
            leafAnswers.countDown();

            await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                Compensation comp = self[0].flows().compensations(id).get(0);
                assertThat(comp.state()).as("state of the compensation after a stale delivery failed it")
                        .isEqualTo("pending");
                assertThat(comp.attempts()).as("attempts after a stale delivery failed it").isEqualTo(2);
            });
            assertThat(self[0].flows().get(id).orElseThrow().state()).isEqualTo(FlowState.COMPENSATING);
        }
    }
}
