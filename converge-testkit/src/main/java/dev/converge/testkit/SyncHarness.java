package dev.converge.testkit;

import dev.converge.Converge;
import dev.converge.queue.EnqueueResult;
import dev.converge.queue.Job;
import dev.converge.queue.JobRow;
import dev.converge.queue.JobState;
import dev.converge.store.Store;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * Runs an engine for a test step by step, on a settable clock: {@link #runDue()} returns only
 * once every job due at the clock's instant has settled (succeeded, failed, cancelled, or put
 * back for later), including the jobs that batches, chains and flows enqueue as they advance; time
 * moves only when the test says so ({@link #advance}), so a backoff, a delay or an expired lease
 * is a line of the test, not a sleep. The handlers run on the engine's own threads, exactly as in
 * production; the test waits on the store's state, never on guesses.
 *
 * <pre>{@code
 * try (SyncHarness h = SyncHarness.h2(b -> b.queue("default", 2).handle(CHARGE, charge))) {
 *     JobRow first = h.work(Job.of(CHARGE, order));       // enqueued, run, settled
 *     h.advance(Duration.ofSeconds(30));                   // its retry's backoff elapses
 *     assertThat(h.engine().job(first.id())).map(JobRow::state).contains(JobState.SUCCEEDED);
 * }
 * }</pre>
 */
public final class SyncHarness implements AutoCloseable {
    /** How long {@link #runDue()} waits for due work to settle before it gives up. */
    public static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(30);

    private final Store store;
    private final SettableClock clock;
    private final Converge engine;
    private final boolean ownsStore;
    /** Jobs in a final state when the last step ended (or when the harness began, on a store not new to it). */
    private long settledAtLastStep;

    private SyncHarness(Store store, SettableClock clock, UnaryOperator<Converge.Builder> configure, boolean ownsStore) {
        this.store = store;
        this.clock = clock;
        this.ownsStore = ownsStore;
        // wake-ups and a short poll: due work is found at once, the clock alone decides what is due
        Converge.Builder b = Converge.builder(store).queues(q -> q.poll(Duration.ofMillis(20))
                        .shutdownGrace(Duration.ofSeconds(2))).leases(l -> l.rescue(Duration.ofMillis(50)));
        this.settledAtLastStep = finished();
        this.engine = configure.apply(b).build().start();
    }

    /** An engine on a private in-memory H2 store whose clock starts now and moves only when told. */
    public static SyncHarness h2(UnaryOperator<Converge.Builder> configure) {
        // whole milliseconds: a stored instant never rounds past the one the test compares it with
        SettableClock clock = new SettableClock(Instant.now().truncatedTo(ChronoUnit.MILLIS));
        return new SyncHarness(TestStores.h2(true, clock), clock, configure, true);
    }

    /** An engine on the caller's store, which must have been opened with {@code clock}; the caller closes it. */
    public static SyncHarness over(Store store, SettableClock clock, UnaryOperator<Converge.Builder> configure) {
        if (store.clock() != clock) {
            throw new IllegalArgumentException("the store must be opened with the harness's clock");
        }
        return new SyncHarness(store, Objects.requireNonNull(clock), configure, false);
    }

    public Converge engine() {
        return engine;
    }

    public SettableClock clock() {
        return clock;
    }

    /**
     * Waits until no job is due at the clock's instant and none is running; returns how many jobs
     * reached a final state since the previous step ended (the engine's threads may have settled a
     * job the test just enqueued before this call began: it counts here, not nowhere).
     */
    public int runDue() {
        long before = settledAtLastStep;
        long deadline = System.nanoTime() + SETTLE_TIMEOUT.toNanos();
        while (unsettled() > 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("jobs due at " + clock.sqlNow() + " did not settle within " + SETTLE_TIMEOUT);
            }
            sleep();
        }
        settledAtLastStep = finished();
        return (int) (settledAtLastStep - before);
    }

    /** Enqueues the job, runs what is due, and returns the job as it settled. */
    public <T> JobRow work(Job<T> job) {
        EnqueueResult r = engine.enqueue(job);
        runDue();
        return engine.job(r.jobId()).orElseThrow();
    }

    /** Moves the clock on, then runs what became due. */
    public int advance(Duration d) {
        clock.advance(d);
        return runDue();
    }

    /** The state of a job now. */
    public JobState state(long jobId) {
        return engine.job(jobId).map(JobRow::state).orElseThrow(() -> new AssertionError("no job " + jobId));
    }

    private long unsettled() {
        return count("SELECT COUNT(*) FROM cv_job WHERE state = 'running' OR (state = 'available' AND run_at <= ?)", true);
    }

    private long finished() {
        return count("SELECT COUNT(*) FROM cv_job WHERE state IN ('succeeded', 'failed', 'cancelled')", false);
    }

    private long count(String sql, boolean bindNow) {
        Instant now = clock.sqlNow();
        return store.withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement(store.expand(sql))) {
                if (bindNow) {
                    ps.setObject(1, now.atOffset(ZoneOffset.UTC)); // bound as the engine binds it
                }
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        });
    }

    private static void sleep() {
        try {
            Thread.sleep(5);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for due jobs", e);
        }
    }

    @Override
    public void close() {
        try {
            engine.close();
        } finally {
            if (ownsStore) {
                store.close();
            }
        }
    }
}
