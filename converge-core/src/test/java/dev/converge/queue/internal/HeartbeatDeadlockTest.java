package dev.converge.queue.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.converge.Converge;
import dev.converge.EngineInternals;
import dev.converge.flow.Harness;
import dev.converge.lease.JobLease;
import dev.converge.queue.Job;
import dev.converge.queue.JobType;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The heartbeat's one statement and a completion's transaction lock this node's running job rows in orders of
 * their own. On PostgreSQL, a transaction of this node that holds one held job's row and then asks for another
 * (as a completion does: its finishes, then its retries) while a beat is under way must never meet the beat in a
 * cycle ({@code deadlock detected}, one of the two failed). Both orders are tried: whichever row the beat's plan
 * takes first, one of them is the crossing one.
 */
class HeartbeatDeadlockTest {
    record Hold(int n) {
    }

    static final JobType<Hold> HOLD = JobType.of("heartbeat-deadlock.hold", Hold.class);

    @Test
    void aBeatNeverCrossesATransactionOfTheSameNodeOverItsRows() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (Harness h = new Harness("postgres")) {
            Converge engine = h.engine(b -> b.queue("default", 2).queues(q -> q.prefetch(0))
                    // the beat runs when the test says, never on its own timer
                    .leases(l -> l.duration(Duration.ofHours(2)).heartbeat(Duration.ofHours(1)))
                    .handle(HOLD, (p, ctx) -> release.await(60, TimeUnit.SECONDS)));
            engine.enqueue(Job.of(HOLD, new Hold(1)));
            engine.enqueue(Job.of(HOLD, new Hold(2)));
            Shared node = EngineInternals.runtime(engine).node();
            await().atMost(Duration.ofSeconds(20)).until(() -> node.held.size() == 2);
            List<JobLease> leases = node.held.values().stream().map(r -> r.job.lease())
                    .sorted(Comparator.comparingLong(JobLease::jobId)).toList();
            Heartbeat heartbeat = EngineInternals.runtime(engine).heartbeat();
            try {
                crossBeat(node, heartbeat, leases.get(0), leases.get(1));
                crossBeat(node, heartbeat, leases.get(1), leases.get(0));
            } finally {
                release.countDown();
            }
            assertThat(node.held.values()).as("no delivery was marked lost").noneMatch(r -> r.lost);
        }
    }

    /** Waits for the beat to start, then a little more: its statement, if it may run, is under way and waiting. */
    private static void pause(CountDownLatch beatStarted) {
        try {
            beatStarted.await(10, TimeUnit.SECONDS);
            Thread.sleep(500);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A transaction of the node locks {@code first}; a beat starts; the transaction then locks {@code second}. */
    private static void crossBeat(Shared node, Heartbeat heartbeat, JobLease first, JobLease second) throws Exception {
        CountDownLatch firstLocked = new CountDownLatch(1);
        CountDownLatch beatStarted = new CountDownLatch(1);
        CompletableFuture<boolean[]> tx = CompletableFuture.supplyAsync(() -> node.inRowWritingTransaction(c -> {
            boolean[] a = node.jobs.extendLeases(c, List.of(first), 300_000, null);
            firstLocked.countDown();
            pause(beatStarted);
            boolean[] b = node.jobs.extendLeases(c, List.of(second), 300_000, null);
            return new boolean[] {a[0], b[0]};
        }));
        assertThat(firstLocked.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Boolean> beat = CompletableFuture.supplyAsync(() -> {
            beatStarted.countDown();
            return heartbeat.beat();
        });
        assertThat(tx.get(30, TimeUnit.SECONDS)).as("the transaction's two writes").containsExactly(true, true);
        assertThat(beat.get(30, TimeUnit.SECONDS)).as("the beat's statement ran and extended").isTrue();
    }
}
