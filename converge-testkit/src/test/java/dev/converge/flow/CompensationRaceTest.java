package dev.converge.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A flow fails while one of its steps is still running under a live lease (failing a flow
 * cancels only work not yet started). Whatever that step registers to undo, before or after its
 * side effect, must be undone after the side effect, and the flow ends only after that.
 */
class CompensationRaceTest {
    record Step(String name) {
    }

    static final JobType<Step> ACT_THEN_REGISTER = JobType.of("comp-race.act-then-register", Step.class)
            .withRetry(RetryPolicy.never());
    static final JobType<Step> REGISTER_THEN_ACT = JobType.of("comp-race.register-then-act", Step.class)
            .withRetry(RetryPolicy.never());
    static final JobType<Step> UNDO = JobType.of("comp-race.undo", Step.class);
    static final JobType<Step> REPORT = JobType.of("comp-race.report", Step.class);

    final List<String> log = new CopyOnWriteArrayList<>();
    final CountDownLatch started = new CountDownLatch(1);
    final CountDownLatch go = new CountDownLatch(1);

    Converge engine(Harness h) {
        Converge[] self = new Converge[1];
        self[0] = h.engine(b -> b.queue("default", 4)
                .handle(ACT_THEN_REGISTER, (p, ctx) -> {
                    started.countDown();
                    go.await();
                    log.add("do:" + p.name());
                    ctx.flows().compensateWith(Job.of(UNDO, p));
                })
                .handle(REGISTER_THEN_ACT, (p, ctx) -> {
                    ctx.flows().compensateWith(Job.of(UNDO, p));
                    started.countDown();
                    go.await();
                    log.add("do:" + p.name());
                })
                .handle(UNDO, (p, ctx) -> log.add("undo:" + p.name()))
                .handle(REPORT, (p, ctx) -> log.add("report:" + p.name())));
        return self[0];
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aStepThatActsAndRegistersAfterTheFlowFailedIsUndoneBeforeTheFlowEnds(String kind) throws Exception {
        failWhileTheStepIsBlocked(kind, ACT_THEN_REGISTER);
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aStepThatRegisteredBeforeTheFlowFailedIsUndoneAfterItActs(String kind) throws Exception {
        failWhileTheStepIsBlocked(kind, REGISTER_THEN_ACT);
    }

    private void failWhileTheStepIsBlocked(String kind, JobType<Step> type) throws Exception {
        try (Harness h = new Harness(kind)) {
            Converge engine = engine(h);
            long id = engine.flows().start(Flow.of("comp-race", kind + type.name()).then(Job.of(type, new Step("repo")))
                    .onFailure(Job.of(REPORT, new Step("failed")))).flowId();
            assertThat(started.await(20, TimeUnit.SECONDS)).as("the step started").isTrue();
            assertThat(engine.flows().fail(id, "an operator cancelled the order")).isTrue();
            Thread.sleep(1000); // the compensation job had its chance to run (and, before, to end the flow)
            go.countDown();

            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(log)
                    .as("what happened, in order").contains("undo:repo", "report:failed"));
            assertThat(log).as("the undo comes after the side effect, the report after the undo")
                    .containsExactly("do:repo", "undo:repo", "report:failed");
            FlowView v = engine.flows().get(id).orElseThrow();
            assertThat(v.state()).isEqualTo(FlowState.FAILED);
            assertThat(engine.flows().compensations(id)).extracting(Compensation::state).containsExactly("done");
        }
    }
}
