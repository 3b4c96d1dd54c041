package dev.converge.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.ConvergeException;
import dev.converge.flow.Harness;
import dev.converge.queue.Job;
import dev.converge.queue.JobCancelledException;
import dev.converge.queue.JobType;
import dev.converge.queue.NonRetryableException;
import dev.converge.queue.RetryPolicy;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Fail-fast batches and their once-only callbacks, on every store. */
class BatchTest {
    record Step(String name) {
    }

    static final JobType<Step> WORK = JobType.of("batch-test.work", Step.class).withRetry(RetryPolicy.never());
    static final JobType<Step> THEN = JobType.of("batch-test.then", Step.class);
    static final JobType<Step> CATCH = JobType.of("batch-test.catch", Step.class);
    static final JobType<Step> FINALLY = JobType.of("batch-test.finally", Step.class);

    static class Counts {
        final AtomicInteger sideEffects = new AtomicInteger();
        final AtomicInteger then = new AtomicInteger();
        final AtomicInteger caught = new AtomicInteger();
        final AtomicInteger fin = new AtomicInteger();

        Converge.Builder callbacks(Converge.Builder b) {
            return b.handle(THEN, (p, ctx) -> then.incrementAndGet())
                    .handle(CATCH, (p, ctx) -> caught.incrementAndGet())
                    .handle(FINALLY, (p, ctx) -> fin.incrementAndGet());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "h2-manual-commit", "postgres"})
    void aFailedJobCancelsTheBatchAndASiblingThatChecksAfterwardsDoesNotActOnIt(String kind) {
        Counts n = new Counts();
        try (Harness h = new Harness(kind)) {
            long[] batchId = new long[1];
            Converge[] self = new Converge[1];
            Converge engine = h.engine(b -> n.callbacks(b).queue("default", 2).queues(q -> q.prefetch(0))
                    .handle(WORK, (p, ctx) -> {
                        if (p.name().equals("fails")) {
                            throw new NonRetryableException("the leaf said no");
                        }
                        // every sibling checks after the failure is recorded, right before its side effect
                        await().atMost(Duration.ofSeconds(10)).until(() -> progress(self[0], batchId[0]).failed() == 1);
                        if (ctx.cancelled()) {
                            throw new JobCancelledException("batch cancelled: stopping before the side effect");
                        }
                        n.sideEffects.incrementAndGet();
                    }));
            self[0] = engine;
            batchId[0] = engine.batches().start(Batch.named("resources")
                    .add(Job.of(WORK, new Step("slow")))
                    .add(Job.of(WORK, new Step("fails")))
                    .add(Job.of(WORK, new Step("later-1")))
                    .add(Job.of(WORK, new Step("later-2")))
                    .onSuccess(Job.of(THEN, new Step("then"))).onFailure(Job.of(CATCH, new Step("catch")))
                    .onEnd(Job.of(FINALLY, new Step("finally"))));

            await().atMost(Duration.ofSeconds(20)).until(() -> n.fin.get() == 1);
            BatchProgress p = progress(engine, batchId[0]);
            assertThat(p.state()).isEqualTo(BatchState.CANCELLED);
            assertThat(p.pending()).isZero();
            assertThat(p.failed()).isEqualTo(1);
            assertThat(p.cancelled()).as("cancelled before they started, or stopped by their own check").isEqualTo(3);
            assertThat(p.succeeded()).isZero();
            assertThat(n.sideEffects.get()).as("no sibling acted after the batch was cancelled").isZero();
            await().atMost(Duration.ofSeconds(20)).until(() -> n.caught.get() == 1);
            assertThat(n.then.get()).isZero();
        }
    }

    static BatchProgress progress(Converge engine, long id) {
        return engine.batches().progress(id).orElseThrow();
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "postgres-schema"})
    void callbacksRunOnceWhenJobsCompleteConcurrentlyOnTwoEngines(String kind) {
        Counts n = new Counts();
        try (Harness h = new Harness(kind)) {
            Converge a = h.engine(b -> n.callbacks(b).queue("default", 8).handle(WORK, (p, ctx) -> n.sideEffects.incrementAndGet()));
            h.engine(h.anotherStore(), b -> n.callbacks(b).queue("default", 8)
                    .handle(WORK, (p, ctx) -> n.sideEffects.incrementAndGet()));
            int batches = 20;
            int perBatch = 25;
            for (int i = 0; i < batches; i++) {
                Batch batch = Batch.named("b" + i).onSuccess(Job.of(THEN, new Step("then")))
                        .onEnd(Job.of(FINALLY, new Step("finally")));
                for (int j = 0; j < perBatch; j++) {
                    batch = batch.add(Job.of(WORK, new Step(i + "-" + j)));
                }
                a.batches().start(batch);
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> n.fin.get() == batches && n.then.get() == batches);
            assertThat(n.sideEffects.get()).isEqualTo(batches * perBatch);
            // let any duplicate callback surface before asserting there was none
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
                    .until(() -> n.then.get() == batches && n.fin.get() == batches);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "postgres-schema"})
    void callbacksRunOnceWhenEveryJobIsDeliveredTwice(String kind) throws Exception {
        Counts n = new Counts();
        dev.converge.testkit.SettableClock clock = dev.converge.testkit.SettableClock.atNow();
        java.util.concurrent.CountDownLatch stalled = new java.util.concurrent.CountDownLatch(5);
        java.util.concurrent.CountDownLatch wake = new java.util.concurrent.CountDownLatch(1);
        try (Harness h = new Harness(kind, clock)) {
            // node A takes every job and stalls past its lease (no heartbeat for an hour)
            Converge a = h.engine(b -> n.callbacks(b).nodeId("node-a").queue("default", 5).queues(q -> q.prefetch(0))
                    .leases(l -> l.duration(Duration.ofHours(2)).heartbeat(Duration.ofHours(1)).rescue(Duration.ofHours(1)))
                    .handle(WORK, (p, ctx) -> {
                        n.sideEffects.incrementAndGet();
                        stalled.countDown();
                        wake.await();
                    }));
            long id = a.batches().start(batchOfFive().onSuccess(Job.of(THEN, new Step("then")))
                    .onEnd(Job.of(FINALLY, new Step("finally"))));
            assertThat(stalled.await(20, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            // the leases expire by the database clock; node B rescues and completes every job again
            clock.advance(Duration.ofHours(3));
            h.engine(h.anotherStore(), b -> n.callbacks(b).nodeId("node-b").queue("default", 5)
                    .leases(l -> l.duration(Duration.ofHours(2)).heartbeat(Duration.ofHours(1)).rescue(Duration.ofMillis(100)))
                    .handle(WORK, (p, ctx) -> n.sideEffects.incrementAndGet()));
            await().atMost(Duration.ofSeconds(30)).until(() -> n.fin.get() == 1 && n.then.get() == 1);
            // node A wakes up and tries to complete the same jobs: refused, and nothing fires again
            wake.countDown();
            await().atMost(Duration.ofSeconds(10)).until(() -> a.stats().leaseLost() >= 5);
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(3))
                    .until(() -> n.then.get() == 1 && n.fin.get() == 1);
            assertThat(n.sideEffects.get()).as("every job ran twice").isEqualTo(10);
            BatchProgress p = progress(a, id);
            assertThat(p.succeeded()).isEqualTo(5);
            assertThat(p.pending()).isZero();
        }
    }

    private static Batch batchOfFive() {
        Batch b = Batch.named("twice");
        for (int i = 0; i < 5; i++) {
            b = b.add(Job.of(WORK, new Step("job-" + i)).maxAttempts(3));
        }
        return b;
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "postgres-schema"})
    void aBatchThatAllowsFailuresRunsToTheEndAndReportsThem(String kind) {
        Counts n = new Counts();
        try (Harness h = new Harness(kind)) {
            Converge engine = h.engine(b -> n.callbacks(b).queue("default", 4).handle(WORK, (p, ctx) -> {
                if (p.name().startsWith("bad")) {
                    throw new NonRetryableException("no");
                }
                n.sideEffects.incrementAndGet();
            }));
            long id = engine.batches().start(Batch.named("tolerant").allowFailures(true)
                    .add(Job.of(WORK, new Step("bad-1"))).add(Job.of(WORK, new Step("ok-1")))
                    .add(Job.of(WORK, new Step("bad-2"))).add(Job.of(WORK, new Step("ok-2")))
                    .onSuccess(Job.of(THEN, new Step("t"))).onFailure(Job.of(CATCH, new Step("c")))
                    .onEnd(Job.of(FINALLY, new Step("f"))));
            await().atMost(Duration.ofSeconds(20)).until(() -> n.fin.get() == 1);
            BatchProgress p = progress(engine, id);
            assertThat(p.state()).isEqualTo(BatchState.FAILED);
            assertThat(p.failed()).isEqualTo(2);
            assertThat(p.succeeded()).isEqualTo(2);
            assertThat(n.sideEffects.get()).isEqualTo(2);
            await().atMost(Duration.ofSeconds(20)).until(() -> n.caught.get() == 1);
            assertThat(n.then.get()).isZero();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2"})
    void badDefinitionsAreRefusedBeforeAnythingIsStored(String kind) {
        try (Harness h = new Harness(kind)) {
            Converge engine = h.engine(b -> b.declare(WORK));
            assertThatThrownBy(() -> engine.batches().start(Batch.named("empty")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least one");
            JobType<Step> unknown = JobType.of("nobody-handles-this", Step.class);
            assertThatThrownBy(() -> engine.batches().start(Batch.named("x").add(Job.of(unknown, new Step("a")))))
                    .isInstanceOf(ConvergeException.class).hasMessageContaining("unknown job type 'nobody-handles-this'");
        }
    }
}
