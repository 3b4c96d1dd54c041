package dev.converge.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.flow.Harness;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * With the default (adaptive) prefetch, a node whose handlers are all busy with slow jobs leases no
 * more than its handlers' recent pace: a job it could not start now stays in the table for a node
 * with a free handler, instead of waiting in this node's local queue (and dying with it).
 */
class SlowJobHoardTest {
    record Work(String name) {
    }

    static final JobType<Work> WORK = JobType.of("hoard.work", Work.class);

    @Test
    void aNodeWhoseOnlyHandlerIsBusyLeavesTheNextJobToANodeWithAFreeOne() throws Exception {
        CountDownLatch firstStarted = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        Map<String, String> ranOn = new ConcurrentHashMap<>();
        try (Harness h = new Harness("postgres")) {
            Converge busy = h.engine(b -> b.nodeId("busy").queue("default", 1).handle(WORK, (w, ctx) -> {
                ranOn.put(w.name(), "busy");
                if (w.name().equals("first")) {
                    firstStarted.countDown();
                    releaseFirst.await();
                }
            }));
            try {
                busy.enqueue(WORK, new Work("first"));
                assertThat(firstStarted.await(20, TimeUnit.SECONDS)).isTrue();
                long second = busy.enqueue(WORK, new Work("second")).jobId();
                Thread.sleep(1_000); // many polls of the busy node's fetcher (50 ms), and the enqueue's wake-up

                h.engine(b -> b.nodeId("free").queue("default", 1).handle(WORK, (w, ctx) -> ranOn.put(w.name(), "free")));
                await().atMost(Duration.ofSeconds(10)).until(() -> busy.job(second).orElseThrow().state() == JobState.SUCCEEDED);
                assertThat(ranOn).containsEntry("second", "free");
                assertThat(busy.attempts(second)).as("never leased by the busy node and lost or handed back").isEmpty();
            } finally {
                releaseFirst.countDown();
            }
        }
    }
}
