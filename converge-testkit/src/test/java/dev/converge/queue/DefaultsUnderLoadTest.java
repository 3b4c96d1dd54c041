package dev.converge.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.Converge;
import dev.converge.store.Store;
import dev.converge.testkit.ScratchDatabase;
import dev.converge.testkit.TestStores;
import dev.converge.time.EngineClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The builder's defaults are sized for throughput (an adaptive prefetch, up to eight fetchers per
 * queue woken one at a time); these are the two things such defaults must not cost: a trickle of
 * jobs after a burst is still picked up at once, and a busy queue does not hold back another.
 */
class DefaultsUnderLoadTest {
    record Work(int n) {
    }

    static final JobType<Work> A = JobType.of("defaults.a", Work.class).withQueue("a");
    static final JobType<Work> B = JobType.of("defaults.b", Work.class).withQueue("b");

    @Test
    void aTrickleAfterABurstIsPickedUpAtOnce() throws Exception {
        SynchronousQueue<Long> starts = new SynchronousQueue<>();
        AtomicInteger burstDone = new AtomicInteger();
        try (ScratchDatabase db = ScratchDatabase.create("cv_trickle");
                Store workerStore = TestStores.postgres(db, true, EngineClock.database(), 12);
                Store producerStore = TestStores.postgres(db, true, EngineClock.database(), 2);
                Converge worker = Converge.builder(workerStore).queues(q -> q.poll(Duration.ofMinutes(10)))
                        .handle(A, (w, ctx) -> {
                            if (w.n() < 0) {
                                starts.put(System.nanoTime());
                            } else {
                                burstDone.incrementAndGet();
                            }
                        })
                        .queue("a", 16).build().start();
                Converge producer = Converge.builder(producerStore).declare(A).build()) {
            // a burst first: the prefetch grows and every fetcher gets to work
            List<Job<Work>> burst = new ArrayList<>();
            for (int i = 0; i < 5000; i++) {
                burst.add(Job.of(A, new Work(i)));
            }
            producer.enqueueAll(burst);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (burstDone.get() < 5000 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(burstDone).hasValue(5000);

            double[] ms = new double[60];
            for (int i = 0; i < ms.length; i++) {
                Thread.sleep(20); // idle again
                long before = System.nanoTime();
                producer.enqueue(A, new Work(-1 - i));
                Long started = starts.poll(30, TimeUnit.SECONDS);
                assertThat(started).as("trickle job %d started", i).isNotNull();
                ms[i] = (started - before) / 1e6;
            }
            Arrays.sort(ms);
            // the poll is ten minutes: each of these was woken by its notification
            assertThat(ms[ms.length / 2]).as("median of %s ms", Arrays.toString(ms)).isLessThan(100);
            assertThat(ms[ms.length - 1]).as("slowest of %s ms", Arrays.toString(ms)).isLessThan(2_000);
        }
    }

    @Test
    void aBusyQueueDoesNotHoldBackAnother() throws Exception {
        AtomicInteger doneA = new AtomicInteger();
        AtomicInteger doneB = new AtomicInteger();
        try (ScratchDatabase db = ScratchDatabase.create("cv_fair");
                Store store = TestStores.postgres(db, true, EngineClock.database(), 14)) {
            try (Converge producer = Converge.builder(store).declare(A).declare(B).build()) {
                List<Job<Work>> jobs = new ArrayList<>();
                for (int i = 0; i < 20_000; i++) {
                    jobs.add(Job.of(A, new Work(i)));
                }
                for (int i = 0; i < 500; i++) {
                    jobs.add(Job.of(B, new Work(i))); // enqueued after all of a's
                }
                producer.enqueueAll(jobs);
            }
            long[] bDoneAt = new long[1];
            int[] aDoneWhenBDone = new int[1];
            try (Converge worker = Converge.builder(store)
                    .handle(A, (w, ctx) -> doneA.incrementAndGet())
                    .handle(B, (w, ctx) -> {
                        if (doneB.incrementAndGet() == 500) {
                            bDoneAt[0] = System.nanoTime();
                            aDoneWhenBDone[0] = doneA.get();
                        }
                    })
                    .queue("a", 8).queue("b", 8).build()) {
                long start = System.nanoTime();
                worker.start();
                long deadline = start + TimeUnit.SECONDS.toNanos(120);
                while ((doneA.get() < 20_000 || doneB.get() < 500) && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertThat(doneB).hasValue(500);
                assertThat(doneA).hasValue(20_000);
                // b's 500 jobs ran beside a's, not after them: a had most of its work still ahead
                assertThat(aDoneWhenBDone[0]).as("a's jobs done when b's last one ran").isLessThan(10_000);
            }
        }
    }
}
