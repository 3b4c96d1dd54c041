package dev.converge.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.flow.Flow;
import dev.converge.flow.FlowState;
import dev.converge.flow.Harness;
import dev.converge.queue.Job;
import dev.converge.queue.JobRow;
import dev.converge.queue.JobState;
import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** R14: after an ambiguous outcome, what happens follows the call's declared safety, not the job. */
class LeafCallSafetyTest {
    record Call(String safety) {
    }

    static final JobType<Call> CALL = JobType.of("safety.call", Call.class)
            .withRetry(RetryPolicy.attempts(3).backoff(Duration.ofMillis(20)));

    @ParameterizedTest
    @EnumSource(value = RepetitionSafety.class, names = {"READ_ONLY", "NATURALLY_IDEMPOTENT", "IDEMPOTENT_BY_KEY", "UNSAFE"})
    void anAmbiguousOutcomeIsRetriedOnlyWhenRepeatingIsSafe(RepetitionSafety safety) {
        AtomicInteger calls = new AtomicInteger();
        try (Harness h = new Harness("h2")) {
            Converge[] self = new Converge[1];
            self[0] = h.engine(b -> b.queue("default", 1).handle(CALL, (p, ctx) -> ctx.ledger().call(
                    new LeafCall<String>() {
                        @Override
                        public String name() {
                            return "deploy";
                        }

                        @Override
                        public RepetitionSafety safety() {
                            return RepetitionSafety.valueOf(p.safety());
                        }

                        @Override
                        public String call(String idempotencyKey) {
                            assertThat(idempotencyKey).isEqualTo("cv-job-" + ctx.jobId() + "-deploy");
                            if (calls.incrementAndGet() == 1) {
                                throw new AmbiguousOutcome("hosting", "read timed out");
                            }
                            return "ok";
                        }
                    })));
            long flow = self[0].flows().start(Flow.of("call", safety.name()).then(Job.of(CALL, new Call(safety.name()))))
                    .flowId();
            await().atMost(Duration.ofSeconds(20)).until(() -> self[0].flows().get(flow).orElseThrow().state().isTerminal());
            FlowState end = self[0].flows().get(flow).orElseThrow().state();
            if (safety == RepetitionSafety.UNSAFE) {
                assertThat(calls).as("never repeated").hasValue(1);
                assertThat(end).isEqualTo(FlowState.NEEDS_ATTENTION);
            } else {
                assertThat(calls).as("retried").hasValue(2);
                assertThat(end).isEqualTo(FlowState.SUCCEEDED);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = RepetitionSafety.class, names = {"IDEMPOTENT_BY_CONSTRAINT", "IDEMPOTENT_BY_TOKEN"})
    void createsAndTokenUsesMustGoThroughTheLedgerOrTheTokenPool(RepetitionSafety safety) {
        try (Harness h = new Harness("h2")) {
            Converge[] self = new Converge[1];
            self[0] = h.engine(b -> b.queue("default", 1).handle(CALL, (p, ctx) -> ctx.ledger().call(
                    new LeafCall<String>() {
                        @Override
                        public String name() {
                            return "create";
                        }

                        @Override
                        public RepetitionSafety safety() {
                            return safety;
                        }

                        @Override
                        public String call(String key) {
                            return "made";
                        }
                    })));
            long id = self[0].enqueue(Job.of(CALL, new Call(safety.name())).maxAttempts(1)).jobId();
            await().atMost(Duration.ofSeconds(10)).until(() -> self[0].job(id).orElseThrow().state().isTerminal());
            JobRow row = self[0].job(id).orElseThrow();
            assertThat(row.state()).isEqualTo(JobState.FAILED);
            assertThat(row.lastError()).contains("ensure()");
        }
    }
}
