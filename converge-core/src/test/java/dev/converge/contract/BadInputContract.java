package dev.converge.contract;

import static dev.converge.contract.ContractFixture.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.Converge;
import dev.converge.ConvergeException;
import dev.converge.queue.JobRow;
import dev.converge.queue.JobState;
import dev.converge.queue.JobType;
import dev.converge.queue.internal.NewJob;
import dev.converge.queue.RetryPolicy;
import dev.converge.contract.ContractJobs.Step;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** Bad input and stuck handlers: a clear error, at enqueue or on the job, never a silent drop. */
public interface BadInputContract extends HasFixture {

    /** Serializes to JSON but cannot be read back: no creator Jackson can use. */
    final class OneWay {
        private final int value;

        public OneWay(int value, String unused) {
            this.value = value;
        }

        public int getValue() {
            return value;
        }
    }

    @Test
    default void anUnknownJobTypeIsRefusedAtEnqueue() {
        Converge producer = fixture().producer(b -> b.declare(ContractJobs.STEP));
        JobType<Step> unknown = JobType.of("contract.nobody-knows", Step.class);
        assertThatThrownBy(() -> producer.enqueue(unknown, new Step(1)))
                .isInstanceOf(ConvergeException.class).hasMessageContaining("contract.nobody-knows");
        assertThat(fixture().store().withConnection(c -> fixture().jobs().countByState(c, null)).get(JobState.AVAILABLE))
                .isZero();
    }

    @Test
    default void aPayloadThatCannotBeReadBackIsRefusedAtEnqueue() {
        JobType<OneWay> type = JobType.of("contract.one-way", OneWay.class);
        Converge producer = fixture().producer(b -> b.declare(type));
        assertThatThrownBy(() -> producer.enqueue(type, new OneWay(1, "x")))
                .isInstanceOf(ConvergeException.class).hasMessageContaining("does not deserialize");
    }

    @Test
    default void aStoredJobOfATypeNoNodeHandlesWaitsOutTheGraceThenFailsWithThatError() {
        Converge engine = fixture().engine(b -> b.handle(ContractJobs.STEP, (s, ctx) -> { }).queue("default", 1)
                .queues(q -> q.unhandledGrace(Duration.ofMinutes(10))));
        long id = insertRaw("contract.retired-type", "{\"n\":1}");
        // a job the node handles, enqueued after it, runs: the node fetched past the unknown one
        fixture().awaitState(engine.enqueue(ContractJobs.STEP, new Step(2)).jobId(), JobState.SUCCEEDED);
        fixture().clock().advance(Duration.ofMinutes(9));
        await().until(() -> engine.jobsWithoutHandler().equals(Map.of("contract.retired-type", 1L)));
        JobRow waiting = fixture().job(id);
        assertThat(waiting.state()).as("within the grace it waits for a node with its handler")
                .isEqualTo(JobState.AVAILABLE);
        assertThat(waiting.attempt()).isZero();

        fixture().clock().advance(Duration.ofMinutes(2));
        JobRow row = fixture().awaitState(id, JobState.FAILED);
        assertThat(row.lastError()).contains("no handler for job type 'contract.retired-type'").contains("PT10M");
        assertThat(row.attempt()).isEqualTo(1);
    }

    @Test
    default void aStoredPayloadThatDoesNotDeserializeFailsWithThatError() {
        List<Step> seen = new CopyOnWriteArrayList<>();
        fixture().engine(b -> b.handle(ContractJobs.STEP, (s, ctx) -> seen.add(s)).queue("default", 1));
        long id = insertRaw(ContractJobs.STEP.name(), "{\"n\": \"not a number\"");
        JobRow row = fixture().awaitState(id, JobState.FAILED);
        assertThat(row.lastError()).contains("does not deserialize as " + Step.class.getName());
        assertThat(seen).isEmpty();
    }

    @Test
    default void aHandlerPastItsTimeoutIsInterruptedAndItsJobRetried() {
        JobType<Step> slow = JobType.of("contract.slow", Step.class).withTimeout(Duration.ofMillis(200))
                .withRetry(RetryPolicy.attempts(3).backoff(Duration.ZERO));
        List<String> seen = new CopyOnWriteArrayList<>();
        Converge engine = fixture().engine(b -> b.handle(slow, (s, ctx) -> {
            if (ctx.attempt() == 1) {
                try {
                    Thread.sleep(Duration.ofMinutes(5).toMillis());
                    seen.add("slept through");
                } catch (InterruptedException e) {
                    seen.add("interrupted");
                    throw e;
                }
            }
        }).queue("default", 1));
        long id = engine.enqueue(slow, new Step(1)).jobId();
        JobRow row = fixture().awaitState(id, JobState.SUCCEEDED);
        assertThat(row.attempt()).isEqualTo(2);
        assertThat(row.lastError()).contains("timed out after 200ms");
        assertThat(seen).containsExactly("interrupted");
    }

    private long insertRaw(String kind, String payload) {
        NewJob row = NewJob.simple("default", kind, payload, 5);
        return fixture().store().withConnection(c -> fixture().jobs().insert(c, row, fixture().clock().sqlNow()).id());
    }
}
