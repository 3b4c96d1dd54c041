package dev.converge.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.flow.Harness;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A node asked to stop (SIGTERM runs {@code close()}) drains: the job its handler is running gets
 * the shutdown grace to finish and is recorded once; jobs it had leased but not started go back
 * at once, with no attempt spent, for another node.
 */
class ShutdownDrainTest {
    record Work(int n) {
    }

    static final JobType<Work> WORK = JobType.of("drain.work", Work.class);

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres"})
    void theRunningJobFinishesWithinTheGraceAndPrefetchedOnesGoBackUnspent(String kind) throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        try (Harness h = new Harness(kind)) {
            Converge producer = h.engine(b -> b.declare(WORK));
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                ids.add(producer.enqueue(WORK, new Work(i)).jobId());
            }
            Converge node = h.engine(b -> b.queue("default", 1).queues(q -> q.prefetch(5).shutdownGrace(Duration.ofSeconds(10)))
                    .handle(WORK, (w, ctx) -> {
                        started.countDown();
                        Thread.sleep(1_000);
                        ran.incrementAndGet();
                    }));
            assertThat(started.await(20, TimeUnit.SECONDS)).isTrue();
            await().atMost(Duration.ofSeconds(10)).until(() -> rows(producer, ids).stream()
                    .filter(r -> r.state() == JobState.RUNNING).count() == 6);

            node.close();

            List<JobRow> rows = rows(producer, ids);
            assertThat(ran.get()).as("the one running handler finished within the grace").isEqualTo(1);
            assertThat(rows).filteredOn(r -> r.state() == JobState.SUCCEEDED).singleElement()
                    .satisfies(r -> assertThat(r.attempt()).isEqualTo(1));
            assertThat(rows).filteredOn(r -> r.state() == JobState.AVAILABLE).hasSize(5)
                    .allSatisfy(r -> assertThat(r.attempt()).as("no attempt spent on a job never started").isZero());
        }
    }

    private static List<JobRow> rows(Converge engine, List<Long> ids) {
        List<JobRow> out = new ArrayList<>();
        for (long id : ids) {
            out.add(engine.job(id).orElseThrow());
        }
        return out;
    }
}
