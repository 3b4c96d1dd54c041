package dev.converge.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.Converge;
import dev.converge.store.Store;
import dev.converge.testkit.ScratchDatabase;
import dev.converge.testkit.TestStores;
import dev.converge.time.EngineClock;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * On PostgreSQL an enqueue inside the caller's transaction carries its NOTIFY in the INSERT
 * statement itself: another node's idle worker (polling every ten minutes) is woken once the
 * caller commits, never by a rolled-back job, and a unique key already taken gives the existing
 * job back, notifies nothing, and leaves the caller's transaction usable.
 */
class CallerTransactionEnqueueTest {
    record Ping(int n) {
    }

    static final JobType<Ping> PING = JobType.of("callertx.ping", Ping.class);

    @Test
    void theCallersCommitWakesAnotherNodeAndARollbackDoesNot() throws Exception {
        LinkedBlockingQueue<Integer> ran = new LinkedBlockingQueue<>();
        try (ScratchDatabase db = ScratchDatabase.create("cv_callertx");
                Store workerStore = TestStores.postgres(db, true, EngineClock.database(), 4);
                Store producerStore = TestStores.postgres(db, true, EngineClock.database(), 2);
                Converge worker = Converge.builder(workerStore).queues(q -> q.poll(Duration.ofMinutes(10)))
                        .handle(PING, (p, ctx) -> ran.put(p.n())).queue("default", 1).build().start();
                Converge producer = Converge.builder(producerStore).declare(PING).build()) {
            Thread.sleep(500); // the worker is listening and idle
            try (Connection c = producerStore.dataSource().getConnection()) {
                c.setAutoCommit(false);
                producer.enqueue(c, Job.of(PING, new Ping(1)));
                c.rollback();
                producer.enqueue(c, Job.of(PING, new Ping(2)));
                assertThat(ran.poll(300, TimeUnit.MILLISECONDS)).as("nothing runs before the commit").isNull();
                c.commit();
                c.setAutoCommit(true);
            }
            // the poll is ten minutes: only the notification explains this
            assertThat(ran.poll(10, TimeUnit.SECONDS)).isEqualTo(2);
            assertThat(ran.poll(300, TimeUnit.MILLISECONDS)).as("the rolled-back job").isNull();
        }
    }

    @Test
    void aTakenUniqueKeyReturnsTheExistingJobAndLeavesTheTransactionUsable() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create("cv_callertx");
                Store store = TestStores.postgres(db, true, EngineClock.database(), 2);
                Converge producer = Converge.builder(store).declare(PING).build()) {
            try (Connection c = store.dataSource().getConnection()) {
                c.setAutoCommit(false);
                EnqueueResult first = producer.enqueue(c, Job.of(PING, new Ping(1)).uniqueKey("k"));
                EnqueueResult again = producer.enqueue(c, Job.of(PING, new Ping(2)).uniqueKey("k"));
                EnqueueResult other = producer.enqueue(c, Job.of(PING, new Ping(3)));
                c.commit();
                c.setAutoCommit(true);
                assertThat(first.duplicate()).isFalse();
                assertThat(again.duplicate()).isTrue();
                assertThat(again.jobId()).isEqualTo(first.jobId());
                assertThat(other.duplicate()).isFalse();
                assertThat(other.jobId()).isNotEqualTo(first.jobId());
            }
            try (Connection c = store.dataSource().getConnection(); Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("SELECT count(*) FROM cv_job")) {
                rs.next();
                assertThat(rs.getInt(1)).isEqualTo(2);
            }
        }
    }
}
