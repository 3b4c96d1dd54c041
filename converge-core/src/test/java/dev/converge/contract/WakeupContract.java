package dev.converge.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.Converge;
import dev.converge.queue.JobState;
import dev.converge.queue.internal.NewJob;
import dev.converge.contract.ContractJobs.Step;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Wake-up: an idle worker starts new work at once when told, and polling finds what nobody announced. */
public interface WakeupContract extends HasFixture {

    @Test
    default void anIdleWorkerStartsANewJobAtOnceWithoutWaitingForItsPoll() {
        Converge engine = fixture().engine(b -> b.queues(q -> q.poll(Duration.ofMinutes(10)))
                .handle(ContractJobs.STEP, (s, ctx) -> { }).queue("default", 2));
        for (int i = 0; i < 5; i++) {
            long started = System.nanoTime();
            long id = engine.enqueue(ContractJobs.STEP, new Step(i)).jobId();
            fixture().awaitState(id, JobState.SUCCEEDED);
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
        }
    }

    @Test
    default void aJobNobodyAnnouncedIsFoundByPolling() {
        fixture().engine(b -> b.queues(q -> q.poll(Duration.ofMillis(200))).handle(ContractJobs.STEP, (s, ctx) -> { }).queue("default", 1));
        // written straight to the table: no in-process signal, no notification
        long id = fixture().store().withConnection(c -> fixture().jobs().insert(c,
                NewJob.simple("default", ContractJobs.STEP.name(), "{\"n\":1}", 3), fixture().clock().sqlNow()).id());
        fixture().awaitState(id, JobState.SUCCEEDED);
    }
}
