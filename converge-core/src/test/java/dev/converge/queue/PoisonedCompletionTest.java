package dev.converge.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.store.internal.Dialects;
import dev.converge.Converge;
import dev.converge.flow.Flow;
import dev.converge.flow.FlowState;
import dev.converge.flow.Harness;
import dev.converge.queue.internal.JobStore;
import dev.converge.queue.internal.LeasedJob;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One job whose completion can never be recorded (a finish hook throws for it, every time) must
 * not stall the others: not the completions recorded after it on this node, and not the
 * rescue of other expired jobs on any node. The poisoned job is parked as failed, with the
 * error, where an operator sees it.
 */
class PoisonedCompletionTest {
    record Work(String name) {
    }

    static final JobType<Work> STEP = JobType.of("poison.step", Work.class).withRetry(RetryPolicy.never());
    /** Jobs on a queue nobody works here: leased by a node that then died. */
    static final JobType<Work> ORPHANED = JobType.of("poison.orphaned", Work.class).withQueue("dead")
            .withRetry(RetryPolicy.never());

    Converge engine(Harness h) {
        return h.engine(b -> dev.converge.EngineInternals.finishHook(b.queue("default", 4)
                .handle(STEP, (p, ctx) -> { })
                .declare(ORPHANED), (tx, job, state, error) -> {
                    if (job.payload().contains("poison")) {
                        throw new IllegalStateException("this hook cannot take job " + job.id());
                    }
                }));
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aCompletionThatAlwaysFailsDoesNotStallTheOthers(String kind) throws Exception {
        try (Harness h = new Harness(kind)) {
            Converge engine = engine(h);
            long poisoned = engine.flows().start(Flow.of("poison", "poison").then(Job.of(STEP, new Work("poison"))))
                    .flowId();
            Thread.sleep(300); // its outcome is first in line
            List<Long> others = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                others.add(engine.flows().start(Flow.of("poison", "ok" + i).then(Job.of(STEP, new Work("ok" + i))))
                        .flowId());
            }
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                for (long id : others) {
                    assertThat(engine.flows().get(id).orElseThrow().state()).as("flow " + id + " behind a poisoned one")
                            .isEqualTo(FlowState.SUCCEEDED);
                }
            });
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(jobOf(h, poisoned))
                    .satisfies(j -> assertThat(j.state()).isEqualTo(JobState.FAILED))
                    .satisfies(j -> assertThat(j.lastError()).contains("this hook cannot take job")));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aRescueThatAlwaysFailsForOneJobStillRescuesTheOthers(String kind) throws Exception {
        try (Harness h = new Harness(kind)) {
            Converge engine = engine(h);
            List<Long> flows = new ArrayList<>();
            long poisoned = engine.flows().start(Flow.of("dead", "poison").then(Job.of(ORPHANED, new Work("poison"))))
                    .flowId();
            for (int i = 0; i < 5; i++) {
                flows.add(engine.flows().start(Flow.of("dead", "ok" + i).then(Job.of(ORPHANED, new Work("ok" + i))))
                        .flowId());
            }
            // a node leases them all and dies at once: every lease expires on its last attempt
            JobStore jobs = new JobStore(Dialects.forUrl(h.store().config().url(), h.store().config().schema()));
            List<LeasedJob> leased = h.store().inTransaction(c -> jobs.lease(c, "dead", 10, "dead-node", 1, null));
            assertThat(leased).hasSize(6);

            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                for (long id : flows) {
                    assertThat(jobOf(h, id).state()).as("expired job of flow " + id).isEqualTo(JobState.FAILED);
                }
            });
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(jobOf(h, poisoned))
                    .satisfies(j -> assertThat(j.state()).isEqualTo(JobState.FAILED))
                    .satisfies(j -> assertThat(j.lastError()).contains("this hook cannot take job")));
        }
    }

    private static JobRow jobOf(Harness h, long flowId) {
        return h.store().withConnection(c -> {
            try (var ps = c.prepareStatement("SELECT id FROM cv_job WHERE flow_id = ?")) {
                ps.setLong(1, flowId);
                try (var rs = ps.executeQuery()) {
                    rs.next();
                    return new JobStore(Dialects.forUrl(h.store().config().url(), h.store().config().schema())).get(c, rs.getLong(1)).orElseThrow();
                }
            }
        });
    }
}
