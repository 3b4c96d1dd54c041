package dev.converge.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.store.Store;
import dev.converge.fixture.ExecutionLog;
import dev.converge.fixture.SettableClock;
import dev.converge.fixture.TestStores;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The cluster tests' checker can fail: it flags a job that ran twice, and one that never ran. */
class ExecutionLogTest {
    record Work(int n) {
    }

    static final JobType<Work> WORK = JobType.of("log.work", Work.class);

    @Test
    void flagsMissingDuplicatedAndUnexpectedRuns() {
        ExecutionLog log = new ExecutionLog();
        log.ran(1);
        log.ran(1);
        log.ran(2);
        log.ran(9);
        ExecutionLog.Report report = log.check(List.of(1L, 2L, 3L));
        assertThat(report.exactlyOnce()).isFalse();
        assertThat(report.duplicated()).isEqualTo(Map.of(1L, 2));
        assertThat(report.missing()).containsExactly(3L);
        assertThat(report.unexpected()).containsExactly(9L);
        assertThat(new ExecutionLog().check(List.of()).exactlyOnce()).isTrue();
    }

    @Test
    void catchesARealDoubleDeliveryThatTheEnginesCountOnlyOnce() throws Exception {
        // a stalled worker's lease expires; another engine runs the job again; the staller then
        // finishes its run too: two executions, one completion. The log must see both runs.
        SettableClock clock = SettableClock.atNow();
        ExecutionLog log = new ExecutionLog();
        CountDownLatch stalled = new CountDownLatch(1);
        CountDownLatch wake = new CountDownLatch(1);
        try (Store store = TestStores.h2(true, clock);
                Converge slow = Converge.builder(store).leases(l -> l.duration(Duration.ofSeconds(30)).heartbeat(Duration.ofSeconds(15))
                                .rescue(Duration.ofMillis(100))).queues(q -> q.poll(Duration.ofMillis(100)).prefetch(0))
                        .handle(WORK, (w, ctx) -> {
                            stalled.countDown();
                            wake.await();
                            log.ran(ctx.jobId());
                        }).queue("default", 1).build().start()) {
            long id = slow.enqueue(WORK, new Work(1)).jobId();
            assertThat(stalled.await(10, TimeUnit.SECONDS)).isTrue();
            try (Converge fast = Converge.builder(store).leases(l -> l.rescue(Duration.ofMillis(100))).queues(q -> q.poll(Duration.ofMillis(100)))
                    .handle(WORK, (w, ctx) -> log.ran(ctx.jobId())).queue("default", 1).build().start()) {
                clock.advance(Duration.ofSeconds(31));
                await().atMost(Duration.ofSeconds(10)).until(() -> fast.stats().succeeded() == 1);
                wake.countDown();
                await().atMost(Duration.ofSeconds(10)).until(() -> slow.stats().leaseLost() == 1);

                ExecutionLog.Report report = log.check(List.of(id));
                assertThat(report.exactlyOnce()).isFalse();
                assertThat(report.duplicated()).isEqualTo(Map.of(id, 2));
                assertThat(slow.stats().succeeded() + fast.stats().succeeded()).as("completions").isEqualTo(1);
            }
        }
    }
}
