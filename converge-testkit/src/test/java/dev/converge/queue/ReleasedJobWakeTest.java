package dev.converge.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.Converge;
import dev.converge.flow.Harness;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A job released (or retried) with a short delay runs when the delay is over, not at the node's next
 * poll: the node that wrote its new run time wakes its own fetcher then. A step waiting for another
 * (a compensation for running steps, a teardown for a compensation) is released for a few hundred
 * milliseconds at a time, and with a poll of a second or more each wait used to cost up to the poll.
 */
class ReleasedJobWakeTest {
    record Ping(String id) {
    }

    static final JobType<Ping> PING = JobType.of("wake.ping", Ping.class);

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void aJobReleasedForAMomentRunsWhenItIsDueNotAtTheNextPoll(String kind) throws Exception {
        List<Long> starts = new CopyOnWriteArrayList<>();
        CountDownLatch twice = new CountDownLatch(2);
        try (Harness h = new Harness(kind)) {
            Converge engine = h.engine(b -> b.queues(q -> q.poll(Duration.ofSeconds(20))).queue("default", 2).handle(PING, (p, ctx) -> {
                starts.add(System.nanoTime());
                twice.countDown();
                if (starts.size() == 1) {
                    ctx.release(Duration.ofMillis(300));
                }
            }));
            engine.enqueue(Job.of(PING, new Ping("a")));
            assertThat(twice.await(15, TimeUnit.SECONDS)).as("the released job ran again well before the 20 s poll")
                    .isTrue();
            long gapMs = TimeUnit.NANOSECONDS.toMillis(starts.get(1) - starts.get(0));
            assertThat(gapMs).as("not before its delay").isGreaterThanOrEqualTo(300);
        }
    }
}
