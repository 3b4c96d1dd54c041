package dev.converge.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.flow.Harness;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A job leased ahead of a free handler (prefetched) whose lease ran out locally before a handler
 * became free (heartbeats could not be confirmed meanwhile) must not start: by the database's
 * clock it may already be another node's. It is left to expire and be redelivered.
 */
class PrefetchedLeaseTest {
    record Work(String name) {
    }

    static final JobType<Work> WORK = JobType.of("prefetched-lease.work", Work.class);

    @Test
    void aPrefetchedJobWhoseLeaseRanOutLocallyDoesNotStart() throws Exception {
        CountDownLatch firstStarted = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        AtomicBoolean tableLocked = new AtomicBoolean();
        List<String> ranWhileCutOff = new CopyOnWriteArrayList<>();
        try (Harness h = new Harness("postgres")) {
            Converge node = h.engine(b -> b.queue("default", 1).queues(q -> q.prefetch(1))
                    .leases(l -> l.duration(Duration.ofSeconds(1))
                            .heartbeat(Duration.ofMillis(250))).handle(WORK, (w, ctx) -> {
                        if (w.name().equals("first")) {
                            firstStarted.countDown();
                            releaseFirst.await();
                        } else if (tableLocked.get()) {
                            ranWhileCutOff.add(w.name());
                        }
                    }));
            long first = node.enqueue(WORK, new Work("first")).jobId();
            assertThat(firstStarted.await(20, TimeUnit.SECONDS)).isTrue();
            long second = node.enqueue(WORK, new Work("second")).jobId();
            await().atMost(Duration.ofSeconds(10)).until(() -> node.job(second).orElseThrow().state() == JobState.RUNNING);

            // the database stops answering this node's heartbeats: a lock nobody else can pass
            try (Connection c = h.anotherStore().dataSource().getConnection()) {
                c.setAutoCommit(false);
                try (Statement st = c.createStatement()) {
                    st.execute("LOCK TABLE cv_job IN ACCESS EXCLUSIVE MODE");
                }
                tableLocked.set(true);
                Thread.sleep(1_500); // past both leases by this node's own clock
                releaseFirst.countDown(); // a handler is free now; the prefetched job's lease ran out meanwhile
                Thread.sleep(500);
                tableLocked.set(false);
                c.rollback();
            }
            assertThat(ranWhileCutOff).as("handlers started on a lease that had run out").isEmpty();
            await().atMost(Duration.ofSeconds(20)).until(() -> node.job(second).orElseThrow().state()
                    == JobState.SUCCEEDED);
            await().atMost(Duration.ofSeconds(20)).until(() -> node.job(first).orElseThrow().state().isTerminal());
        }
    }
}
