package dev.converge.contract;

import static dev.converge.contract.ContractFixture.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.converge.Converge;
import dev.converge.queue.Job;
import dev.converge.queue.JobRow;
import dev.converge.queue.JobState;
import dev.converge.queue.JobType;
import dev.converge.queue.NodeInfo;
import dev.converge.contract.ContractJobs.Step;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
                .queues(q -> q.poll(Duration.ofMillis(20))).handle(ContractJobs.STEP, (s, ctx) -> { }).queue("default", 4));
        Converge next = fixture().engineOn(fixture().openAnotherStore(), b -> b.nodeId("next")
                .queues(q -> q.poll(Duration.ofMillis(20))).handle(ContractJobs.STEP, (s, ctx) -> { }).handle(NEXT, (s, ctx) -> { })
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
        fixture().engineOn(fixture().openAnotherStore(), b -> b.nodeId("previous").queues(q -> q.poll(Duration.ofMillis(20)))
                .handle(ContractJobs.STEP, (s, ctx) -> { }).queue("default", 1));
        // a job of a type the node handles, enqueued after the waiting one, runs: the node has fetched past it
        long later = producer.enqueue(ContractJobs.STEP, new Step(2)).jobId();
        fixture().awaitState(later, JobState.SUCCEEDED);
        JobRow row = fixture().job(waiting);
        assertThat(row.state()).isEqualTo(JobState.AVAILABLE);
        assertThat(row.attempt()).as("no attempt spent on a node without its handler").isZero();

        fixture().engineOn(fixture().openAnotherStore(), b -> b.nodeId("next").queues(q -> q.poll(Duration.ofMillis(20)))
                .handle(ContractJobs.STEP, (s, ctx) -> { }).handle(NEXT, (s, ctx) -> { }).queue("default", 1));
        row = fixture().awaitState(waiting, JobState.SUCCEEDED);
        assertThat(row.attempt()).isEqualTo(1);
    }

    @Test
    default void theFleetListsEachRunningNodeWithItsVersionQueuesAndTypes() {
        Converge previous = fixture().engineOn(fixture().openAnotherStore(), b -> b.nodeId("previous")
                .nodeVersion("1.4.0").handle(ContractJobs.STEP, (s, ctx) -> { }).queue("default", 2));
        Converge next = fixture().engineOn(fixture().openAnotherStore(), b -> b.nodeId("next").nodeVersion("1.5.0")
                .handle(ContractJobs.STEP, (s, ctx) -> { }).handle(NEXT, (s, ctx) -> { }).queue("default", 1)
                .queue("reports", 3));
        List<NodeInfo> nodes = previous.nodes();
        assertThat(nodes).extracting(NodeInfo::nodeId).containsExactly("next", "previous");
        NodeInfo n = nodes.get(0);
        assertThat(n.version()).isEqualTo("1.5.0");
        assertThat(n.queues()).containsExactly(Map.entry("default", 1), Map.entry("reports", 3));
        assertThat(n.jobTypes()).contains(ContractJobs.STEP.name(), NEXT.name());
        assertThat(n.live()).isTrue();
        assertThat(nodes.get(1).jobTypes()).contains(ContractJobs.STEP.name()).doesNotContain(NEXT.name());
        assertThat(nodes.get(1).version()).isEqualTo("1.4.0");

        previous.close();
        assertThat(next.nodes()).extracting(NodeInfo::nodeId).as("a node that stopped cleanly is not listed")
                .containsExactly("next");
    }

    @Test
    default void aNodeKilledWithoutStoppingIsListedNotLiveThenForgotten() {
        Converge node = fixture().engine(b -> b.nodeId("survivor").leases(l -> l.heartbeat(Duration.ofMillis(100)))
                .handle(ContractJobs.STEP, (s, ctx) -> { }).queue("default", 1));
        // a node that was killed: its row stays as it last wrote it
        fixture().sql("INSERT INTO cv_node (node_id, version, queues, job_types, started_at, last_seen) VALUES "
                + "('killed', '1.4.0', 'default=4', 'contract.step', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)");
        fixture().clock().advance(Duration.ofMinutes(5));
        await().untilAsserted(() -> assertThat(node.nodes()).extracting(NodeInfo::nodeId, NodeInfo::live)
                .containsExactly(tuple("killed", false), tuple("survivor", true)));
        fixture().clock().advance(Duration.ofHours(1));
        await().untilAsserted(() -> assertThat(node.nodes()).extracting(NodeInfo::nodeId, NodeInfo::live)
                .as("the leader forgets a node gone for an hour").containsExactly(tuple("survivor", true)));
    }

    @Test
    default void aJobALiveNodeHandlesIsNotFailedByTheGraceHoweverLongItWaits() throws Exception {
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Converge producer = fixture().producer(b -> b.declare(ContractJobs.STEP).declare(NEXT));
        // the only node with NEXT's handler is busy with one job at a time, and prefetches none
        fixture().engineOn(fixture().openAnotherStore(), b -> b.nodeId("next").queues(q -> q.poll(Duration.ofMillis(20)).prefetch(0))
                .handle(ContractJobs.STEP, (s, ctx) -> {
                    busy.countDown();
                    release.await();
                }).handle(NEXT, (s, ctx) -> { }).queue("default", 1));
        producer.enqueue(ContractJobs.STEP, new Step(0));
        assertThat(busy.await(20, TimeUnit.SECONDS)).isTrue();
        long waiting = producer.enqueue(NEXT, new Step(1)).jobId();
        Converge previous = fixture().engineOn(fixture().openAnotherStore(), b -> b.nodeId("previous")
                .queues(q -> q.poll(Duration.ofMillis(20)).unhandledGrace(Duration.ofSeconds(20)))
                .handle(ContractJobs.STEP, (s, ctx) -> { }).queue("default", 1));
        fixture().clock().advance(Duration.ofSeconds(25)); // past the grace, within the busy job's lease
        long later = producer.enqueue(ContractJobs.STEP, new Step(2)).jobId();
        fixture().awaitState(later, JobState.SUCCEEDED);
        // two rounds of the previous node's look at its queue (every six rescue intervals, 100 ms here)
        Thread.sleep(1_500);
        assertThat(previous.jobsWithoutHandler()).as("a live node handles it: it is not unhandled").isEmpty();
        assertThat(fixture().job(waiting).state()).isEqualTo(JobState.AVAILABLE);

        release.countDown();
        assertThat(fixture().awaitState(waiting, JobState.SUCCEEDED).attempt()).isEqualTo(1);
    }

    @Test
    default void theGraceCountsFromTheEnqueueForAJobDueSinceEarlier() throws Exception {
        Converge producer = fixture().producer(b -> b.declare(ContractJobs.STEP).declare(NEXT));
        fixture().engineOn(fixture().openAnotherStore(), b -> b.nodeId("previous")
                .queues(q -> q.poll(Duration.ofMillis(20)).unhandledGrace(Duration.ofSeconds(20)))
                .handle(ContractJobs.STEP, (s, ctx) -> { }).queue("default", 1));
        // due since an hour ago (as a continuation of work begun then is), enqueued now, in the middle of a rollout
        long waiting = producer.enqueue(Job.of(NEXT, new Step(1)).runAt(fixture().clock().sqlNow().minus(Duration.ofHours(1))))
                .jobId();
        long later = producer.enqueue(ContractJobs.STEP, new Step(2)).jobId();
        fixture().awaitState(later, JobState.SUCCEEDED);
        Thread.sleep(1_500); // two rounds of the node's look at its queue (every six rescue intervals, 100 ms here)
        assertThat(fixture().job(waiting).state()).as("failed before its grace from the enqueue had passed")
                .isEqualTo(JobState.AVAILABLE);

        fixture().clock().advance(Duration.ofSeconds(25));
        assertThat(fixture().awaitState(waiting, JobState.FAILED).attempt()).isEqualTo(1);
    }

    /** The payload of {@link #EVOLVING} as this node knows it: a newer version added a field, an older one had {@code note}. */
    record Evolving(int n, String note, List<String> tags) {
    }

    JobType<Evolving> EVOLVING = JobType.of("contract.evolving", Evolving.class);

    @Test
    default void aPayloadWithAFieldThisNodeDoesNotKnowIsReadAndAMissingFieldReadsAsItsDefault() {
        List<Evolving> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        fixture().engine(b -> b.handle(EVOLVING, (e, ctx) -> seen.add(e)).queue("default", 1));
        // written by a newer version that added "priority"
        long newer = insertRaw(EVOLVING.name(), "{\"n\":1,\"note\":\"a\",\"tags\":[\"x\"],\"priority\":7}");
        // written by an older version that had no "note" nor "tags" yet, nor "n"
        long older = insertRaw(EVOLVING.name(), "{}");
        assertThat(fixture().awaitState(newer, JobState.SUCCEEDED).attempt()).isEqualTo(1);
        assertThat(fixture().awaitState(older, JobState.SUCCEEDED).attempt()).isEqualTo(1);
        assertThat(seen).containsExactlyInAnyOrder(new Evolving(1, "a", List.of("x")), new Evolving(0, null, null));
    }

    private long insertRaw(String kind, String payload) {
        dev.converge.queue.internal.NewJob row = dev.converge.queue.internal.NewJob.simple("default", kind, payload, 5);
        return fixture().store().withConnection(c -> fixture().jobs().insert(c, row, fixture().clock().sqlNow()).id());
    }

    private Map<JobState, Long> counts() {
        return fixture().store().withConnection(c -> fixture().jobs().countByState(c, "default"));
    }
}
