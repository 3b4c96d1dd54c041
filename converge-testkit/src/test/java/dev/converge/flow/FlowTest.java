package dev.converge.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.batch.Batch;
import dev.converge.queue.Job;
import dev.converge.queue.JobCancelledException;
import dev.converge.queue.JobType;
import dev.converge.queue.NonRetryableException;
import dev.converge.queue.RetryPolicy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Flows: steps in order, compensation in reverse before the failure is reported, once. */
class FlowTest {
    record Step(String subject, String name) {
    }

    static final JobType<Step> STEP = JobType.of("flow-test.step", Step.class).withRetry(RetryPolicy.never());
    static final JobType<Step> UNDO = JobType.of("flow-test.undo", Step.class);
    static final JobType<Step> REPORT = JobType.of("flow-test.report", Step.class).withRetry(RetryPolicy.attempts(2)
            .backoff(Duration.ofMillis(10)));

    /** What happened, in order, across all handlers. */
    final List<String> log = new CopyOnWriteArrayList<>();

    Converge engine(Harness h, String failAt, boolean reportThrows, String undoThatFails) {
        return h.engine(b -> b.queue("default", 4)
                .handle(STEP, (p, ctx) -> {
                    if (p.name().equals(failAt)) {
                        throw new NonRetryableException("step " + p.name() + " failed");
                    }
                    log.add("do:" + p.name());
                    ctx.flowId().ifPresent(id -> ctx.flows().compensateWith(Job.of(UNDO, p)));
                })
                .handle(UNDO, (p, ctx) -> {
                    if (p.name().equals(undoThatFails)) {
                        throw new IllegalStateException("cannot undo " + p.name());
                    }
                    log.add("undo:" + p.name());
                })
                .handle(REPORT, (p, ctx) -> {
                    log.add("report:" + p.name());
                    if (reportThrows) {
                        throw new IllegalStateException("the notification service is down");
                    }
                }));
    }

    private Converge engine;

    Flow provisioning(String subject) {
        return Flow.of("provision", subject)
                .then(Batch.named("resources").add(Job.of(STEP, new Step(subject, "repo")))
                        .add(Job.of(STEP, new Step(subject, "site"))))
                .then(Job.of(STEP, new Step(subject, "deploy")))
                .then(Job.of(STEP, new Step(subject, "email")))
                .onSuccess(Job.of(REPORT, new Step(subject, "succeeded")))
                .onFailure(Job.of(REPORT, new Step(subject, "failed")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "postgres-schema"})
    void aFlowRunsItsStepsInOrderAndReportsSuccessOnce(String kind) {
        try (Harness h = new Harness(kind)) {
            engine = engine(h, null, false, null);
            FlowRun run = engine.flows().start(provisioning("site-1"));
            assertThat(run.created()).isTrue();
            FlowRun again = engine.flows().start(provisioning("site-1"));
            assertThat(again.created()).isFalse();
            assertThat(again.flowId()).isEqualTo(run.flowId());

            await().atMost(Duration.ofSeconds(20)).until(() -> log.contains("report:succeeded"));
            assertThat(engine.flows().get(run.flowId()).orElseThrow().state()).isEqualTo(FlowState.SUCCEEDED);
            assertThat(log.subList(0, 2)).containsExactlyInAnyOrder("do:repo", "do:site");
            assertThat(log.subList(2, 5)).containsExactly("do:deploy", "do:email", "report:succeeded");
            assertThat(engine.flows().history(run.flowId())).extracting(FlowEvent::to)
                    .containsExactly(FlowState.RUNNING, FlowState.SUCCEEDED);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "postgres-schema"})
    void aFailedFlowCompensatesInReverseBeforeItReports(String kind) {
        try (Harness h = new Harness(kind)) {
            engine = engine(h, "email", false, null);
            FlowRun run = engine.flows().start(provisioning("site-2"));
            await().atMost(Duration.ofSeconds(20)).until(() -> log.contains("report:failed"));
            FlowView v = engine.flows().get(run.flowId()).orElseThrow();
            assertThat(v.state()).isEqualTo(FlowState.FAILED);
            assertThat(v.failureReason()).contains("step email failed");
            int report = log.indexOf("report:failed");
            assertThat(log.subList(report - 3, report + 1)).as("undo newest first, then report")
                    .startsWith("undo:deploy").endsWith("report:failed");
            assertThat(log).containsOnlyOnce("undo:repo", "undo:site", "undo:deploy", "report:failed");
            assertThat(engine.flows().history(run.flowId())).extracting(FlowEvent::to)
                    .containsExactly(FlowState.RUNNING, FlowState.COMPENSATING, FlowState.FAILED);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "postgres-schema"})
    void aThrowingReportCannotPreventOrUndoCompensation(String kind) {
        try (Harness h = new Harness(kind)) {
            engine = engine(h, "deploy", true, null);
            FlowRun run = engine.flows().start(provisioning("site-3"));
            await().atMost(Duration.ofSeconds(20)).until(() -> log.stream().filter("report:failed"::equals).count() == 2);
            assertThat(log.indexOf("report:failed")).isGreaterThan(log.indexOf("undo:repo"))
                    .isGreaterThan(log.indexOf("undo:site"));
            assertThat(engine.flows().compensations(run.flowId())).extracting(Compensation::state).containsOnly("done");
            assertThat(engine.flows().get(run.flowId()).orElseThrow().state()).isEqualTo(FlowState.FAILED);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "postgres-schema"})
    void aCompensationThatGivesUpDoesNotStopTheOthersAndTheFlowNeedsAttention(String kind) {
        try (Harness h = new Harness(kind)) {
            engine = engine(h, "email", false, "deploy");
            FlowRun run = engine.flows().start(provisioning("site-4"));
            await().atMost(Duration.ofSeconds(20)).until(() -> log.contains("report:failed"));
            assertThat(log).contains("undo:repo", "undo:site").doesNotContain("undo:deploy");
            FlowView v = engine.flows().get(run.flowId()).orElseThrow();
            assertThat(v.state()).isEqualTo(FlowState.NEEDS_ATTENTION);
            assertThat(engine.flows().compensations(run.flowId())).extracting(Compensation::state)
                    .containsExactlyInAnyOrder("done", "done", "failed");
        }
    }

    static final JobType<Step> GIVES_UP = JobType.of("flow-test.gives-up", Step.class);

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "postgres-schema"})
    void aLinkThatEndsCancelledEndsItsFlow(String kind) {
        try (Harness h = new Harness(kind)) {
            Converge e = h.engine(b -> b.queue("default", 2)
                    .handle(GIVES_UP, (p, ctx) -> {
                        throw new JobCancelledException("the order behind " + p.subject() + " was withdrawn");
                    })
                    .handle(STEP, (p, ctx) -> log.add("do:" + p.name()))
                    .handle(REPORT, (p, ctx) -> log.add("report:" + p.name())));
            FlowRun run = e.flows().start(Flow.of("cancelled-link", "site-5")
                    .then(Job.of(GIVES_UP, new Step("site-5", "first")))
                    .then(Job.of(STEP, new Step("site-5", "second")))
                    .onFailure(Job.of(REPORT, new Step("site-5", "failed"))));
            // no deadline: nothing but the cancelled link itself can end this flow
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(e.flows().get(run.flowId())
                    .orElseThrow().state()).as("state of a flow whose link ended cancelled").isEqualTo(FlowState.FAILED));
            assertThat(e.flows().get(run.flowId()).orElseThrow().failureReason()).contains("cancelled");
            await().atMost(Duration.ofSeconds(10)).until(() -> log.contains("report:failed"));
            assertThat(log).doesNotContain("do:second");
        }
    }
}
