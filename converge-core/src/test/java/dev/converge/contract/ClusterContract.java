package dev.converge.contract;

import static dev.converge.contract.ContractFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.Converge;
import dev.converge.queue.Job;
import dev.converge.queue.JobState;
import dev.converge.fixture.ExecutionLog;
import dev.converge.fixture.JoinGate;
import dev.converge.contract.ContractJobs.Step;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Several engines, each on its own pool, over one queue: every job runs and completes exactly once. */
public interface ClusterContract extends HasFixture {

    /** Jobs in the contract's cluster run; the dedicated cluster tests run ten thousand. */
    int CLUSTER_JOBS = 2_000;
    /** Engines in the contract's cluster run. */
    int ENGINES = 3;

    @Test
    default void severalEnginesRunEachJobExactlyOnce() {
        ExecutionLog log = new ExecutionLog();
        List<Job<Step>> jobs = new ArrayList<>();
        for (int i = 0; i < CLUSTER_JOBS; i++) {
            jobs.add(Job.of(ContractJobs.STEP, new Step(i)));
        }
        long[] ids = fixture().producer(b -> b.declare(ContractJobs.STEP)).enqueueAll(jobs);
        List<Converge> engines = new ArrayList<>();
        // no job finishes before every engine has started one: otherwise the first engine up may
        // run all of them before the others open their pools, and nothing would be shared
        JoinGate gate = new JoinGate(ENGINES, Duration.ofSeconds(10));
        for (int e = 0; e < ENGINES; e++) {
            String node = "cluster-" + e;
            engines.add(fixture().engineOn(fixture().openAnotherStore(), b -> b.nodeId(node)
                    .queues(q -> q.poll(Duration.ofMillis(50))).handle(ContractJobs.STEP, (s, ctx) -> {
                        gate.arrive(node);
                        log.ran(ctx.jobId());
                    }).queue("default", 4)));
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> engines.stream().mapToLong(x -> x.stats().succeeded()).sum() >= CLUSTER_JOBS);

        List<Long> expected = new ArrayList<>();
        for (long id : ids) {
            expected.add(id);
        }
        ExecutionLog.Report report = log.check(expected);
        assertThat(report.exactlyOnce()).as(report.toString()).isTrue();
        assertThat(engines.stream().mapToLong(x -> x.stats().succeeded()).sum()).isEqualTo(CLUSTER_JOBS);
        assertThat(engines.stream().mapToLong(x -> x.stats().leaseLost()).sum()).isZero();
        Map<JobState, Long> counts = fixture().store().withConnection(c -> fixture().jobs().countByState(c, "default"));
        assertThat(counts.get(JobState.SUCCEEDED)).isEqualTo(CLUSTER_JOBS);
        assertThat(engines).allSatisfy(x -> assertThat(x.stats().succeeded()).as("every engine took part").isPositive());
    }
}
