package dev.converge.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import dev.converge.queue.NonRetryableException;
import dev.converge.queue.RetryPolicy;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A person retries a flow that the watchdog ended {@code needs_attention} while its compensating
 * job was waiting to retry a compensation that had failed once. The retry starts a new
 * compensating job; the one it supersedes must not wake up later and run the same compensation
 * again. Here the compensation is a refund that is not idempotent: it must be paid once.
 */
class RetriedCompensationTest {
    record Step(String name) {
    }

    static final JobType<Step> CHARGE = JobType.of("retried-comp.charge", Step.class).withRetry(RetryPolicy.never());
    static final JobType<Step> REFUND = JobType.of("retried-comp.refund", Step.class);

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aPersonsRetryDoesNotLetTheSupersededCompensatingJobRefundAgain(String kind) {
        AtomicInteger calls = new AtomicInteger();
        AtomicInteger refunds = new AtomicInteger();
        try (Harness h = new Harness(kind)) {
            Converge[] self = new Converge[1];
            self[0] = h.engine(b -> b.queue("default", 4).maintenance(m -> m.watchdog(Duration.ofMillis(100)))
                    // compensation gets 2 s, then again 2 s after a retry; after its first failure the
                    // refund waits 3 s, so the watchdog ends the flow needs_attention meanwhile, and
                    // the first job wakes while the retry's job is in its (1.8 s) refund call
                    .ledger(g -> g.compensationDeadlineAtLeast(Duration.ofSeconds(2))
                            .compensationRetry(RetryPolicy.attempts(5).backoff(Duration.ofSeconds(3)).jitter(0)))
                    .handle(CHARGE, (p, ctx) -> {
                        ctx.flows().compensateWith(Job.of(REFUND, p));
                        throw new NonRetryableException("card declined after the hold");
                    })
                    .handle(REFUND, (p, ctx) -> {
                        if (calls.incrementAndGet() == 1) {
                            throw new IllegalStateException("payment provider unavailable");
                        }
                        Thread.sleep(1_800); // a slow refund: the superseded job wakes while it is under way
                        refunds.incrementAndGet();
                    }));
            long id = self[0].flows().start(Flow.of("retried-comp", kind).deadline(Duration.ofSeconds(1))
                    .then(Job.of(CHARGE, new Step("order-1")))).flowId();
            await().atMost(Duration.ofSeconds(20)).until(() -> self[0].flows().get(id).orElseThrow().state()
                    == FlowState.NEEDS_ATTENTION);
            assertThat(calls.get()).as("the refund failed once and its job waits to retry it").isEqualTo(1);

            assertThat(self[0].flows().retry(id, "ops@example.com", "provider is back")).isTrue();
            await().atMost(Duration.ofSeconds(30)).until(() -> self[0].flows().get(id).orElseThrow().state()
                    .isTerminal());
            // the superseded job's retry time (3 s after the first failure) has passed by now; give
            // any late delivery the time to run its refund before counting
            await().pollDelay(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(10)).until(() -> true);
            assertThat(refunds.get()).as("refunds paid for one charge").isEqualTo(1);
            assertThat(self[0].flows().get(id).orElseThrow().state()).isEqualTo(FlowState.FAILED);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aRetryWhileTheEarlierJobIsStillInItsRefundCallWaitsForItInsteadOfRefundingBeside(String kind) {
        AtomicInteger refunds = new AtomicInteger();
        AtomicInteger inCall = new AtomicInteger();
        AtomicInteger overlapped = new AtomicInteger();
        try (Harness h = new Harness(kind)) {
            Converge[] self = new Converge[1];
            self[0] = h.engine(b -> b.queue("default", 4).maintenance(m -> m.watchdog(Duration.ofMillis(100)))
                    .ledger(g -> g.compensationDeadlineAtLeast(Duration.ofSeconds(2)))
                    .handle(CHARGE, (p, ctx) -> {
                        ctx.flows().compensateWith(Job.of(REFUND, p));
                        throw new NonRetryableException("card declined after the hold");
                    })
                    .handle(REFUND, (p, ctx) -> {
                        if (inCall.incrementAndGet() > 1) {
                            overlapped.incrementAndGet();
                        }
                        try {
                            // the provider answers after 4 s: past the compensation's deadline
                            Thread.sleep(refunds.get() == 0 ? 4_000 : 100);
                            refunds.incrementAndGet();
                        } finally {
                            inCall.decrementAndGet();
                        }
                    }));
            long id = self[0].flows().start(Flow.of("retried-comp-running", kind).deadline(Duration.ofSeconds(1))
                    .then(Job.of(CHARGE, new Step("order-2")))).flowId();
            await().atMost(Duration.ofSeconds(20)).until(() -> self[0].flows().get(id).orElseThrow().state()
                    == FlowState.NEEDS_ATTENTION);
            assertThat(inCall.get()).as("the first refund call is still under way").isEqualTo(1);

            assertThat(self[0].flows().retry(id, "ops@example.com", "looks stuck")).isTrue();
            await().atMost(Duration.ofSeconds(30)).until(() -> self[0].flows().get(id).orElseThrow().state()
                    .isTerminal());
            await().pollDelay(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10)).until(() -> inCall.get() == 0);
            assertThat(overlapped.get()).as("refund calls that ran beside another").isZero();
            assertThat(refunds.get()).as("refunds paid for one charge").isEqualTo(1);
        }
    }
}
