package dev.converge.contract;

import static dev.converge.contract.ContractFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.Converge;
import dev.converge.queue.Job;
import dev.converge.queue.JobRow;
import dev.converge.queue.JobState;
import dev.converge.queue.NonRetryableException;
import dev.converge.contract.ContractJobs.Order;
import dev.converge.contract.ContractJobs.Step;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Running jobs: typed payloads, named queues, delays, attempts, backoff, release, failure records. */
public interface QueueContract extends HasFixture {

    @Test
    default void aTypedHandlerReceivesItsPayloadThroughJson() {
        List<Order> seen = new CopyOnWriteArrayList<>();
        Converge engine = fixture().engine(b -> b.handle(ContractJobs.ORDER, (o, ctx) -> seen.add(o)).queue("default", 2));
        long id = engine.enqueue(ContractJobs.ORDER, ContractJobs.order()).jobId();
        fixture().awaitState(id, JobState.SUCCEEDED);
        assertThat(seen).containsExactly(ContractJobs.order());
        assertThat(fixture().job(id).payload()).contains("\"customer\":\"ada\"");
    }

    @Test
    default void aJobRunsOnlyOnItsNamedQueue() {
        List<String> ran = new CopyOnWriteArrayList<>();
        Converge alpha = fixture().engine(b -> b.handle(ContractJobs.STEP, (s, ctx) -> ran.add("step-" + s.n()))
                .queue("alpha", 2));
        long onBeta = alpha.enqueue(Job.of(ContractJobs.STEP, new Step(2)).queue("beta")).jobId();
        long onAlpha = alpha.enqueue(Job.of(ContractJobs.STEP, new Step(1)).queue("alpha")).jobId();
        fixture().awaitState(onAlpha, JobState.SUCCEEDED);
        assertThat(fixture().job(onBeta).state()).isEqualTo(JobState.AVAILABLE);
        assertThat(ran).containsExactly("step-1");

        fixture().engine(b -> b.handle(ContractJobs.STEP, (s, ctx) -> ran.add("beta-" + s.n())).queue("beta", 1));
        fixture().awaitState(onBeta, JobState.SUCCEEDED);
        assertThat(ran).containsExactly("step-1", "beta-2");
    }

    @Test
    default void aDelayedJobWaitsForItsTimeByTheEngineClock() {
        List<Integer> ran = new CopyOnWriteArrayList<>();
        Converge engine = fixture().engine(b -> b.handle(ContractJobs.STEP, (s, ctx) -> ran.add(s.n())).queue("default", 2));
        long delayed = engine.enqueue(Job.of(ContractJobs.STEP, new Step(1)).delay(Duration.ofMinutes(5))).jobId();
        long at = engine.enqueue(Job.of(ContractJobs.STEP, new Step(2))
                .runAt(fixture().clock().sqlNow().plus(Duration.ofMinutes(10)))).jobId();
        long due = engine.enqueue(ContractJobs.STEP, new Step(3)).jobId();
        // the fetcher has looked at the queue since both were enqueued: it ran the due job only
        fixture().awaitState(due, JobState.SUCCEEDED);
        assertThat(fixture().job(delayed).state()).isEqualTo(JobState.AVAILABLE);
        assertThat(ran).containsExactly(3);

        fixture().clock().advance(Duration.ofMinutes(5).plusSeconds(1));
        fixture().awaitState(delayed, JobState.SUCCEEDED);
        assertThat(fixture().job(at).state()).isEqualTo(JobState.AVAILABLE);
        fixture().clock().advance(Duration.ofMinutes(5));
        fixture().awaitState(at, JobState.SUCCEEDED);
        assertThat(ran).containsExactly(3, 1, 2);
    }

    @Test
    default void aFailingJobRunsMaxAttemptsTimesThenFails() {
        AtomicInteger calls = new AtomicInteger();
        Converge engine = fixture().engine(b -> b.handle(ContractJobs.FLAKY, (s, ctx) -> {
            calls.incrementAndGet();
            throw new IllegalStateException("always failing, attempt " + ctx.attempt());
        }).queue("default", 1));
        long id = engine.enqueue(ContractJobs.FLAKY, new Step(1)).jobId();
        JobRow row = fixture().awaitState(id, JobState.FAILED);
        assertThat(row.attempt()).isEqualTo(3);
        assertThat(calls).hasValue(3);
        assertThat(row.lastError()).contains("always failing, attempt 3");

        long once = engine.enqueue(Job.of(ContractJobs.FLAKY, new Step(2)).maxAttempts(1)).jobId();
        assertThat(fixture().awaitState(once, JobState.FAILED).attempt()).isEqualTo(1);
    }

    @Test
    default void retriesBackOffExponentiallyWithJitterUpToTheCap() {
        Converge engine = fixture().engine(b -> b.handle(ContractJobs.BACKOFF, (s, ctx) -> {
            throw new IllegalStateException("down");
        }).queue("default", 1));
        long id = engine.enqueue(ContractJobs.BACKOFF, new Step(1)).jobId();
        // policy: 10s doubling, capped at 60s, +-20%
        long[] base = {10, 20, 40, 60, 60};
        for (int attempt = 1; attempt <= base.length; attempt++) {
            int expected = attempt;
            await().until(() -> fixture().job(id).attempt() == expected && fixture().job(id).state() == JobState.AVAILABLE);
            Instant now = fixture().clock().sqlNow();
            Duration wait = Duration.between(now, fixture().job(id).runAt());
            assertThat(wait.toMillis()).as("wait after attempt %d", attempt)
                    .isBetween(base[attempt - 1] * 800, Math.min(60_000, base[attempt - 1] * 1200));
            fixture().clock().advance(wait);
        }
        assertThat(fixture().awaitState(id, JobState.FAILED).attempt()).isEqualTo(6);
    }

    @Test
    default void aHandlerCanReleaseItsJobToRunAgainLater() {
        List<Integer> attempts = new CopyOnWriteArrayList<>();
        Converge engine = fixture().engine(b -> b.handle(ContractJobs.STEP, (s, ctx) -> {
            attempts.add(ctx.attempt());
            if (ctx.attempt() == 1) {
                ctx.release(Duration.ofMinutes(2));
            }
        }).queue("default", 1));
        long id = engine.enqueue(ContractJobs.STEP, new Step(1)).jobId();
        await().until(() -> fixture().job(id).state() == JobState.AVAILABLE && fixture().job(id).attempt() == 1);
        JobRow released = fixture().job(id);
        assertThat(Duration.between(fixture().clock().sqlNow(), released.runAt())).isEqualTo(Duration.ofMinutes(2));
        assertThat(released.lastError()).isNull();

        fixture().clock().advance(Duration.ofMinutes(2));
        assertThat(fixture().awaitState(id, JobState.SUCCEEDED).attempt()).isEqualTo(2);
        assertThat(attempts).containsExactly(1, 2);
    }

    @Test
    default void aNonRetryableErrorFailsTheJobAtOnce() {
        AtomicInteger calls = new AtomicInteger();
        Converge engine = fixture().engine(b -> b.handle(ContractJobs.FLAKY, (s, ctx) -> {
            calls.incrementAndGet();
            throw new NonRetryableException("card declined");
        }).queue("default", 1));
        long id = engine.enqueue(ContractJobs.FLAKY, new Step(1)).jobId();
        JobRow row = fixture().awaitState(id, JobState.FAILED);
        assertThat(row.attempt()).isEqualTo(1);
        assertThat(calls).hasValue(1);
        assertThat(row.lastError()).contains("card declined");
    }

    @Test
    default void aFailedJobKeepsItsLastErrorAndStackTrace() {
        Converge engine = fixture().engine(b -> b.handle(ContractJobs.FLAKY, (s, ctx) -> Failing.chargeCard(ctx.attempt()))
                .queue("default", 1));
        long id = engine.enqueue(ContractJobs.FLAKY, new Step(1)).jobId();
        String error = fixture().awaitState(id, JobState.FAILED).lastError();
        assertThat(error).contains("java.lang.IllegalStateException: gateway refused attempt 3")
                .contains("at " + Failing.class.getName() + ".chargeCard(")
                .doesNotContain("attempt 2");
    }

    /** A named frame the stack trace must show. */
    final class Failing {
        private Failing() {
        }

        static void chargeCard(int attempt) {
            throw new IllegalStateException("gateway refused attempt " + attempt);
        }
    }
}
