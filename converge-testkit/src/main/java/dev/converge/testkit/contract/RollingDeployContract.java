package dev.converge.testkit.contract;

import static dev.converge.testkit.contract.ContractFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.Converge;
import dev.converge.queue.Job;
import dev.converge.queue.JobRow;
import dev.converge.queue.JobState;
import dev.converge.queue.JobType;
import dev.converge.testkit.contract.ContractJobs.Step;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A fleet in the middle of a rolling deploy: nodes of the previous version (which do not know a
 * job type yet) work the same queue as nodes of the next one. No job fails because the node that
 * leased it had no handler for it; a job whose type no node handles yet waits for one.
 */
public interface RollingDeployContract extends HasFixture {
    /** The job type the "next version" adds. */
    JobType<Step> NEXT = JobType.of("contract.next-version", Step.class);
    int EACH = 200;

    @Test
    default void nodesOfTwoVersionsRunEveryJobAndFailNone() {
        List<Job<Step>> jobs = new ArrayList<>();
        for (int i = 0; i < EACH; i++) {
            jobs.add(Job.of(ContractJobs.STEP, new Step(i)));
            jobs.add(Job.of(NEXT, new Step(i)));
        }
        fixture().producer(b -> b.declare(ContractJobs.STEP).declare(NEXT)).enqueueAll(jobs);
        Converge previous = fixture().engineOn(fixture().openAnotherStore(), b -> b.nodeId("previous")
                .poll(Duration.ofMillis(20)).handle(ContractJobs.STEP, (s, ctx) -> { }).queue("default", 4));
        Converge next = fixture().engineOn(fixture().openAnotherStore(), b -> b.nodeId("next")
                .poll(Duration.ofMillis(20)).handle(ContractJobs.STEP, (s, ctx) -> { }).handle(NEXT, (s, ctx) -> { })
                .queue("default", 4));
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            Map<JobState, Long> counts = counts();
            return counts.get(JobState.SUCCEEDED) + counts.get(JobState.FAILED) == 2L * EACH;
        });
        Map<JobState, Long> counts = counts();
        assertThat(counts.get(JobState.FAILED)).as("jobs failed for lack of a handler on the node that leased them")
                .isZero();
        assertThat(counts.get(JobState.SUCCEEDED)).isEqualTo(2L * EACH);
        assertThat(previous.stats().succeeded() + next.stats().succeeded()).isEqualTo(2L * EACH);
    }

    @Test
    default void aJobNoRunningNodeHandlesWaitsUntilOneDoes() {
        Converge producer = fixture().producer(b -> b.declare(ContractJobs.STEP).declare(NEXT));
        long waiting = producer.enqueue(NEXT, new Step(1)).jobId();
        fixture().engineOn(fixture().openAnotherStore(), b -> b.nodeId("previous").poll(Duration.ofMillis(20))
                .handle(ContractJobs.STEP, (s, ctx) -> { }).queue("default", 1));
        // a job of a type the node handles, enqueued after the waiting one, runs: the node has fetched past it
        long later = producer.enqueue(ContractJobs.STEP, new Step(2)).jobId();
        fixture().awaitState(later, JobState.SUCCEEDED);
        JobRow row = fixture().job(waiting);
        assertThat(row.state()).isEqualTo(JobState.AVAILABLE);
        assertThat(row.attempt()).as("no attempt spent on a node without its handler").isZero();

        fixture().engineOn(fixture().openAnotherStore(), b -> b.nodeId("next").poll(Duration.ofMillis(20))
                .handle(ContractJobs.STEP, (s, ctx) -> { }).handle(NEXT, (s, ctx) -> { }).queue("default", 1));
        row = fixture().awaitState(waiting, JobState.SUCCEEDED);
        assertThat(row.attempt()).isEqualTo(1);
    }

    private Map<JobState, Long> counts() {
        return fixture().store().withConnection(c -> fixture().jobs().countByState(c, "default"));
    }
}
