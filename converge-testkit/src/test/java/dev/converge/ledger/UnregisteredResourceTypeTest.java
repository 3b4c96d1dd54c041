package dev.converge.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.queue.Job;
import dev.converge.queue.JobRow;
import dev.converge.queue.JobState;
import dev.converge.queue.JobType;
import dev.converge.testkit.SyncHarness;
import dev.converge.testkit.leaf.CountingLeaf;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A step that ensures a resource of a type the engine was not given (no {@code .resource(type)})
 * fails for good at once, saying to register it: teardown and the reaper could not act on what
 * it created, so it must not create anything.
 */
class UnregisteredResourceTypeTest {
    record Order(String id) {}

    static final JobType<Order> CHARGE = JobType.of("charge", Order.class);

    @Test
    void ensuringAnUnregisteredTypeFailsOnceAndSaysToRegisterIt() {
        CountingLeaf payments = CountingLeaf.byIdempotencyKey("payment");
        try (SyncHarness h = SyncHarness.h2(b -> b.queue("default", 1)
                .handle(CHARGE, (o, ctx) -> ctx.ledger().ensure(payments, "order-" + o.id(), "customer-7", Map.of())))) {
            JobRow job = h.work(Job.of(CHARGE, new Order("42")));
            assertThat(job.state()).isEqualTo(JobState.FAILED);
            assertThat(job.attempt()).isEqualTo(1);
            assertThat(job.lastError()).contains(".resource(").contains("payment");
            assertThat(payments.totalCreates()).isZero();
        }
    }
}
