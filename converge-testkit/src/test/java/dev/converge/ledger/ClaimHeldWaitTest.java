package dev.converge.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.flow.Harness;
import dev.converge.queue.Job;
import dev.converge.queue.JobRow;
import dev.converge.queue.JobState;
import dev.converge.queue.JobType;
import dev.converge.queue.RetryPolicy;
import dev.converge.testkit.leaf.CountingLeaf;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A step that meets a claim held by another live delivery waits for it: the job is released with a
 * delay that spends no attempt, however long the other takes, and succeeds once the claim is free.
 */
class ClaimHeldWaitTest {
    record Make(String key, String subject) {
    }

    static final int MAX_ATTEMPTS = 2;
    static final JobType<Make> MAKE = JobType.of("claim-wait.make", Make.class)
            .withRetry(RetryPolicy.attempts(MAX_ATTEMPTS).backoff(Duration.ofMillis(20)).cappedAt(Duration.ofMillis(50)));

    /** A unique-by-key leaf whose first create blocks until the test lets it answer. */
    static final class SlowLeaf implements ResourceType {
        final CountingLeaf leaf = CountingLeaf.uniqueByKey("claim-wait.repo");
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch answer = new CountDownLatch(1);

        @Override
        public String kind() {
            return leaf.kind();
        }

        @Override
        public RepetitionSafety createSafety() {
            return leaf.createSafety();
        }

        @Override
        public boolean supportsLookup() {
            return true;
        }

        @Override
        public LeafResource create(CreateRequest request) {
            entered.countDown();
            try {
                answer.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return leaf.create(request);
        }

        @Override
        public Optional<LeafResource> find(String naturalKey) {
            return leaf.find(naturalKey);
        }

        @Override
        public void delete(LeafResource resource) {
            leaf.delete(resource);
        }

        @Override
        public List<LeafResource> list() {
            return leaf.list();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aStepBehindAHeldClaimWaitsWithoutSpendingAttemptsAndSucceedsWhenItFrees(String kind) throws Exception {
        SlowLeaf slow = new SlowLeaf();
        AtomicInteger held = new AtomicInteger();
        try (Harness h = new Harness(kind)) {
            Converge[] self = new Converge[1];
            self[0] = h.engine(b -> b.queue("default", 2).resource(slow).handle(MAKE, (p, ctx) -> {
                try {
                    ctx.ledger().ensure(slow, p.key(), p.subject(), Map.of());
                } catch (ClaimHeld e) {
                    held.incrementAndGet();
                    throw e;
                }
            }));
            Converge engine = self[0];
            long first = engine.enqueue(Job.of(MAKE, new Make("site-1", "s1"))).jobId();
            assertThat(slow.entered.await(10, TimeUnit.SECONDS)).isTrue();
            long second = engine.enqueue(Job.of(MAKE, new Make("site-1", "s1"))).jobId();
            // the second meets the first's claim many more times than it has attempts
            await().atMost(Duration.ofSeconds(30)).until(() -> held.get() > MAX_ATTEMPTS * 2
                    || engine.job(second).orElseThrow().state().isTerminal());
            JobRow waiting = engine.job(second).orElseThrow();
            assertThat(waiting.state().isTerminal()).as("still waiting, not " + waiting.state() + ": " + waiting.lastError())
                    .isFalse();
            slow.answer.countDown();
            await().atMost(Duration.ofSeconds(20)).until(() -> engine.job(second).orElseThrow().state().isTerminal()
                    && engine.job(first).orElseThrow().state().isTerminal());
            assertThat(engine.job(first).orElseThrow().state()).isEqualTo(JobState.SUCCEEDED);
            JobRow done = engine.job(second).orElseThrow();
            assertThat(done.state()).as(String.valueOf(done.lastError())).isEqualTo(JobState.SUCCEEDED);
            assertThat(held.get()).isGreaterThan(MAX_ATTEMPTS);
            assertThat(done.attempt()).as("waiting spent no attempt").isLessThanOrEqualTo(MAX_ATTEMPTS);
            assertThat(slow.leaf.totalCreates()).isEqualTo(1);
        }
    }
}
