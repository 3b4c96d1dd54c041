package dev.converge.contract;

import dev.converge.queue.internal.Decision;
import static dev.converge.contract.ContractFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.Converge;
import dev.converge.lease.LeaseLost;
import dev.converge.queue.Job;
import dev.converge.lease.JobLease;
import dev.converge.queue.JobRow;
import dev.converge.queue.JobState;
import dev.converge.queue.internal.JobStore;
import dev.converge.queue.internal.LeasedJob;
import dev.converge.queue.internal.NewJob;
import dev.converge.contract.ContractJobs.Step;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Leases with fencing: SKIP LOCKED batches, epochs, expiry by the database (here: the settable)
 * clock, heartbeats, redelivery, and a stale delivery that can write nothing and finds out.
 */
public interface LeaseContract extends HasFixture {

    @Test
    default void concurrentBatchLeasesNeverShareARowAndTogetherTakeEveryJobOnce() throws Exception {
        insert(250);
        JobStore jobs = fixture().jobs();
        Set<Long> ids = new HashSet<>();
        try (Connection a = fixture().store().dataSource().getConnection();
                Connection b = fixture().store().dataSource().getConnection()) {
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            List<LeasedJob> first = jobs.lease(a, "default", 100, "a", lease(), now());
            // while a still holds its rows, b must not get them: PostgreSQL skips them and hands b the
            // next ones; H2 may make b wait for a's commit and then find those rows taken
            CompletableFuture<List<LeasedJob>> second = CompletableFuture.supplyAsync(() -> {
                try {
                    List<LeasedJob> got = jobs.lease(b, "default", 100, "b", lease(), now());
                    b.commit();
                    return got;
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            try {
                second.get(1, TimeUnit.SECONDS);
            } catch (TimeoutException waiting) {
                // b waits for a's locks: let it go on
            }
            a.commit();
            assertThat(first).hasSize(100);
            for (List<LeasedJob> batch : List.of(first, second.get(20, TimeUnit.SECONDS))) {
                batch.forEach(j -> assertThat(ids.add(j.id())).as("job %d leased twice", j.id()).isTrue());
            }
            List<LeasedJob> more;
            do {
                more = jobs.lease(a, "default", 100, "a", lease(), now());
                a.commit();
                more.forEach(j -> assertThat(ids.add(j.id())).as("job %d leased twice", j.id()).isTrue());
                more.forEach(j -> assertThat(j.epoch()).isEqualTo(1));
            } while (!more.isEmpty());
            a.setAutoCommit(true);
            b.setAutoCommit(true);
        }
        assertThat(ids).hasSize(250);
    }

    @Test
    default void anExpiredLeaseIsRedeliveredUnderANewEpochAndTheStaleOneCanWriteNothing() {
        insert(1);
        JobStore jobs = fixture().jobs();
        LeasedJob stale = fixture().store().withConnection(c -> jobs.lease(c, "default", 1, "a", lease(), now())).get(0);
        assertThat(stale.epoch()).isEqualTo(1);
        assertThat(rescue()).as("not expired yet").isZero();

        fixture().clock().advance(ContractFixture.LEASE.plusMillis(1));
        assertThat(leaseValid(stale.lease())).isFalse();
        assertThat(rescue()).isEqualTo(1);
        LeasedJob fresh = fixture().store().withConnection(c -> jobs.lease(c, "default", 1, "b", lease(), now())).get(0);
        assertThat(fresh.id()).isEqualTo(stale.id());
        assertThat(fresh.epoch()).isEqualTo(2);
        assertThat(fresh.attempt()).isEqualTo(2);

        assertThat(finish(stale.lease(), JobState.SUCCEEDED)).as("stale completion").isFalse();
        assertThat(finish(stale.lease(), JobState.FAILED)).as("stale failure").isFalse();
        assertThat(fixture().store().inTransaction(c -> jobs.retry(c,
                List.of(new Decision.Retry(stale.lease(), 0, "stale release", false)), now()))[0]).as("stale release").isFalse();
        assertThat(fixture().store().inTransaction(c -> jobs.extendLeases(c, List.of(stale.lease()), lease(), now()))[0])
                .as("stale heartbeat").isFalse();
        assertThat(leaseValid(stale.lease())).isFalse();
        assertThat(leaseValid(fresh.lease())).isTrue();

        assertThat(finish(fresh.lease(), JobState.SUCCEEDED)).isTrue();
        JobRow row = fixture().job(stale.id());
        assertThat(row.state()).isEqualTo(JobState.SUCCEEDED);
        assertThat(row.epoch()).isEqualTo(2);
        assertThat(row.lastError()).contains("lease expired");
    }

    @Test
    default void aJobWhoseWorkerStallsIsRedeliveredAndTheStallersLateCompletionIsRefused() throws Exception {
        CountDownLatch stalled = new CountDownLatch(1);
        CountDownLatch wake = new CountDownLatch(1);
        List<String> runs = new CopyOnWriteArrayList<>();
        // A: one thread, nothing prefetched, no heartbeat within the test: it holds the job and goes quiet
        Converge a = fixture().engine(b -> b.leases(l -> l.heartbeat(Duration.ofSeconds(15))).queues(q -> q.prefetch(0))
                .handle(ContractJobs.STEP, (s, ctx) -> {
                    runs.add("a@" + ctx.lease().epoch());
                    stalled.countDown();
                    wake.await();
                }).queue("default", 1));
        long id = a.enqueue(ContractJobs.STEP, new Step(1)).jobId();
        assertThat(stalled.await(20, TimeUnit.SECONDS)).isTrue();
        Converge b = fixture().engine(x -> x.handle(ContractJobs.STEP, (s, ctx) -> runs.add("b@" + ctx.lease().epoch()))
                .queue("default", 1));

        fixture().clock().advance(ContractFixture.LEASE.plusSeconds(1));
        JobRow done = fixture().awaitState(id, JobState.SUCCEEDED);
        assertThat(done.epoch()).isEqualTo(2);
        assertThat(done.attempt()).isEqualTo(2);

        wake.countDown();
        await().until(() -> a.stats().leaseLost() == 1);
        assertThat(runs).containsExactly("a@1", "b@2");
        assertThat(a.stats().succeeded()).isZero();
        assertThat(b.stats().succeeded()).isEqualTo(1);
        assertThat(fixture().job(id).epoch()).isEqualTo(2);
    }

    @Test
    default void heartbeatsKeepALongJobsLeaseAlive() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        Converge engine = fixture().engine(b -> b.leases(l -> l.heartbeat(Duration.ofMillis(50)))
                .handle(ContractJobs.STEP, (s, ctx) -> {
                    started.countDown();
                    finish.await();
                }).queue("default", 1));
        long id = engine.enqueue(ContractJobs.STEP, new Step(1)).jobId();
        assertThat(started.await(20, TimeUnit.SECONDS)).isTrue();
        for (int i = 0; i < 3; i++) {
            // two thirds of a lease at a time: expired three times over unless heartbeats extend it
            fixture().clock().advance(Duration.ofSeconds(20));
            var expectedExpiry = fixture().clock().sqlNow().plus(ContractFixture.LEASE);
            await().until(() -> expectedExpiry.equals(fixture().job(id).leaseExpiresAt()));
            assertThat(rescue()).isZero();
        }
        finish.countDown();
        JobRow row = fixture().awaitState(id, JobState.SUCCEEDED);
        assertThat(row.epoch()).isEqualTo(1);
        assertThat(row.attempt()).isEqualTo(1);
    }

    @Test
    default void aWorkerWhoseLeaseWasTakenOverLearnsItAndStops() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch stopped = new CountDownLatch(1);
        CountDownLatch thiefHolds = new CountDownLatch(1);
        List<String> seen = new CopyOnWriteArrayList<>();
        Converge engine = fixture().engine(b -> b.leases(l -> l.heartbeat(Duration.ofMillis(50))).queues(q -> q.prefetch(0))
                .handle(ContractJobs.STEP, (s, ctx) -> {
                    started.countDown();
                    try {
                        while (true) { // a long job that checks its lease before each side effect
                            ctx.checkLease();
                            Thread.sleep(5);
                        }
                    } catch (LeaseLost | InterruptedException e) {
                        seen.add(e.getClass().getSimpleName());
                        stopped.countDown();
                        // keep this node's only thread busy until the thief holds the job: the handler
                        // may learn of the loss as soon as the job is put back, and a free thread here
                        // would lease it again before the other node does
                        thiefHolds.await(20, TimeUnit.SECONDS);
                        throw e;
                    }
                }).queue("default", 1));
        long id = engine.enqueue(ContractJobs.STEP, new Step(1)).jobId();
        assertThat(started.await(20, TimeUnit.SECONDS)).isTrue();
        // another node takes the expired job over (its own heartbeat may revive it once or twice first)
        do {
            fixture().clock().advance(ContractFixture.LEASE.plusSeconds(1));
            rescue();
        } while (fixture().job(id).state() != JobState.AVAILABLE);
        // the other node fetches as a node does, again until it gets the job: one fetch skips a row locked at that
        // moment, and on PostgreSQL the stale node's refused heartbeat can hold it (an UPDATE that waited for the
        // rescue and then found the row no longer running keeps it locked until its own commit)
        List<LeasedJob> thief = new CopyOnWriteArrayList<>();
        await().until(() -> {
            thief.addAll(fixture().store().withConnection(c -> fixture().jobs().lease(c, "default", 1, "thief", lease(), now())));
            return !thief.isEmpty();
        });
        thiefHolds.countDown();
        assertThat(thief).as("the put-back job is there for the other node").hasSize(1);
        LeasedJob taken = thief.get(0);
        assertThat(taken.epoch()).isEqualTo(2);

        assertThat(stopped.await(20, TimeUnit.SECONDS)).as("the stale handler was stopped").isTrue();
        await().until(() -> engine.stats().leaseLost() == 1);
        JobRow row = fixture().job(id);
        assertThat(row.state()).isEqualTo(JobState.RUNNING);
        assertThat(row.leaseOwner()).isEqualTo("thief");
        assertThat(engine.stats().succeeded() + engine.stats().failed() + engine.stats().retried()).isZero();
        assertThat(seen).hasSize(1);
        assertThat(finish(taken.lease(), JobState.SUCCEEDED)).isTrue();
    }

    @Test
    default void gracefulShutdownFinishesWhatRunsAndGivesBackWhatWaits() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        AtomicLong running = new AtomicLong();
        long[] ids = fixture().producer(b -> b.declare(ContractJobs.STEP)).enqueueAll(List.of(
                Job.of(ContractJobs.STEP, new Step(1)), Job.of(ContractJobs.STEP, new Step(2)),
                Job.of(ContractJobs.STEP, new Step(3))));
        // a grace longer than the waits below: the running job must finish, not be interrupted
        Converge engine = fixture().engine(b -> b.queues(q -> q.prefetch(2).shutdownGrace(Duration.ofSeconds(60)))
                .handle(ContractJobs.STEP, (s, ctx) -> {
            running.set(ctx.jobId());
            started.countDown();
            finish.await();
        }).queue("default", 1));
        assertThat(started.await(20, TimeUnit.SECONDS)).isTrue();
        await().until(() -> engine.stats().leased() == 3);
        Thread closer = new Thread(engine::close);
        closer.start();
        for (long id : ids) {
            if (id != running.get()) {
                JobRow back = fixture().awaitState(id, JobState.AVAILABLE);
                assertThat(back.attempt()).as("never started: no attempt counted").isZero();
            }
        }
        finish.countDown();
        closer.join(20_000);
        assertThat(closer.isAlive()).isFalse();
        assertThat(fixture().job(running.get()).state()).isEqualTo(JobState.SUCCEEDED);
    }

    @Test
    default void shutdownInterruptsAHandlerPastTheGraceAndGivesItsJobBack() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        Converge engine = fixture().engine(b -> b.queues(q -> q.shutdownGrace(Duration.ofMillis(200))).handle(ContractJobs.STEP, (s, ctx) -> {
            started.countDown();
            Thread.sleep(Duration.ofMinutes(5).toMillis());
        }).queue("default", 1));
        long id = engine.enqueue(ContractJobs.STEP, new Step(1)).jobId();
        assertThat(started.await(20, TimeUnit.SECONDS)).isTrue();
        engine.close();
        JobRow row = fixture().job(id);
        assertThat(row.state()).isEqualTo(JobState.AVAILABLE);
        assertThat(row.leaseExpiresAt()).as("no lease held").isNull();
        assertThat(row.leaseOwner()).as("the node that ran its last attempt").isEqualTo(engine.nodeId());
        assertThat(row.attempt()).isEqualTo(1);
    }

    private void insert(int n) {
        fixture().store().inTransaction(c -> {
            for (int i = 0; i < n; i++) {
                fixture().jobs().insert(c, NewJob.simple("default", ContractJobs.STEP.name(), "{\"n\":" + i + "}", 5), now());
            }
            return null;
        });
    }

    private java.time.Instant now() {
        return fixture().clock().sqlNow();
    }

    private static long lease() {
        return ContractFixture.LEASE.toMillis();
    }

    private boolean leaseValid(JobLease l) {
        return fixture().store().withConnection(c -> fixture().jobs().leaseValid(c, l, now()));
    }

    private boolean finish(JobLease l, JobState state) {
        return fixture().store().inTransaction(c -> fixture().jobs().finish(c,
                List.of(new Decision.Finish(l, state, state == JobState.FAILED ? "stale" : null)), now()))[0];
    }

    /** What a rescuer does, at the store: expired leases go back to available, fenced by their epoch. */
    private int rescue() {
        return fixture().store().inTransaction(c -> {
            List<LeasedJob> expired = fixture().jobs().expiredLeases(c, 100, now());
            List<Decision.Retry> back = expired.stream()
                    .map(j -> new Decision.Retry(j.lease(), 0, "lease expired (contract)", false)).toList();
            boolean[] applied = fixture().jobs().retry(c, back, now());
            int n = 0;
            for (boolean x : applied) {
                n += x ? 1 : 0;
            }
            return n;
        });
    }
}
