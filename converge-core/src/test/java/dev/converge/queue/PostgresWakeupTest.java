package dev.converge.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.store.internal.Dialects;
import dev.converge.Converge;
import dev.converge.queue.internal.JobStore;
import dev.converge.queue.internal.LeasedJob;
import dev.converge.store.Store;
import dev.converge.fixture.ScratchDatabase;
import dev.converge.fixture.TestStores;
import dev.converge.time.EngineClock;
import java.sql.Connection;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What only PostgreSQL promises: another node's enqueue wakes an idle worker through
 * LISTEN/NOTIFY within milliseconds (its poll is ten minutes), and a second lease skips the
 * rows a first, uncommitted one holds and takes the next ones instead of waiting.
 */
class PostgresWakeupTest {
    record Ping(int n) {
    }

    static final JobType<Ping> PING = JobType.of("wake.ping", Ping.class);

    @Test
    void anotherNodesEnqueueWakesAnIdleWorkerAtOnce() throws Exception {
        SynchronousQueue<Long> starts = new SynchronousQueue<>();
        try (ScratchDatabase db = ScratchDatabase.create("cv_wake");
                Store workerStore = TestStores.postgres(db, true, EngineClock.database(), 4);
                Store producerStore = TestStores.postgres(db, true, EngineClock.database(), 2);
                Converge worker = Converge.builder(workerStore).queues(q -> q.poll(Duration.ofMinutes(10)))
                        .handle(PING, (p, ctx) -> starts.put(System.nanoTime())).queue("default", 1).build().start();
                Converge producer = Converge.builder(producerStore).declare(PING).build()) {
            double[] ms = new double[50];
            for (int i = 0; i < ms.length; i++) {
                Thread.sleep(20); // idle again
                long before = System.nanoTime();
                producer.enqueue(PING, new Ping(i));
                Long started = starts.poll(30, TimeUnit.SECONDS);
                assertThat(started).as("sample %d started", i).isNotNull();
                ms[i] = (started - before) / 1e6;
            }
            Arrays.sort(ms);
            // the poll is ten minutes: only a notification explains any of these
            assertThat(ms[ms.length - 1]).as("slowest of %s ms", Arrays.toString(ms)).isLessThan(5_000);
            assertThat(ms[ms.length / 2]).as("median of %s ms", Arrays.toString(ms)).isLessThan(1_000);
        }
    }

    @Test
    void aSecondLeaseTakesTheNextRowsInsteadOfWaiting() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create("cv_skip");
                Store store = TestStores.postgres(db, true, EngineClock.database(), 4);
                Converge producer = Converge.builder(store).declare(PING).build()) {
            producer.enqueueAll(java.util.stream.IntStream.range(0, 200).mapToObj(i -> Job.of(PING, new Ping(i))).toList());
            JobStore jobs = new JobStore(Dialects.forUrl(store.config().url(), store.config().schema()));
            try (Connection a = store.dataSource().getConnection(); Connection b = store.dataSource().getConnection()) {
                a.setAutoCommit(false);
                b.setAutoCommit(false);
                List<LeasedJob> first = jobs.lease(a, "default", 100, "a", 30_000, null);
                List<LeasedJob> second = jobs.lease(b, "default", 100, "b", 30_000, null);
                a.rollback();
                b.rollback();
                assertThat(first).hasSize(100);
                assertThat(second).hasSize(100);
                Set<Long> ids = new HashSet<>();
                first.forEach(j -> ids.add(j.id()));
                second.forEach(j -> ids.add(j.id()));
                assertThat(ids).hasSize(200);
                a.setAutoCommit(true);
                b.setAutoCommit(true);
            }
        }
    }
}
