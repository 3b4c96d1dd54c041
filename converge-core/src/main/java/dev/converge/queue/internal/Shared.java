package dev.converge.queue.internal;

import dev.converge.crash.CrashPlan;
import dev.converge.store.Store;
import dev.converge.store.internal.Dialect;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What the parts of a node share: the store, the handlers, the deliveries it holds, its counters,
 * listeners and wake-ups. {@link EngineRuntime} builds it first and hands it down to the fetchers,
 * the invoker, the completer, the heartbeat and the rescuer, none of which knows the runtime.
 */
final class Shared {
    private static final int MAX_ERROR_CHARS = 16_000;
    private static final Duration WAKE_LATER_MAX = Duration.ofMinutes(1);

    final Store store;
    final Dialect dialect;
    final JobStore jobs;
    final String nodeId;
    final EngineSettings settings;
    final HandlerRegistry registry;
    final Counters counters = new Counters();
    final CrashPlan crashPlan;
    final JobFinisher finisher;
    final CancellationProbe cancellation;
    final EngineObservers events;
    final Wakeup wakeup = new Wakeup();
    /** This node's deliveries by job id, from lease to durable outcome. */
    final Map<Long, RunningJob> held = new ConcurrentHashMap<>();
    /**
     * A completion or rescue transaction locks running job rows statement by statement (the finishes, then
     * the retries, then the flows' hooks), and the heartbeat's one statement locks this node's running rows
     * in whatever order its plan visits them. Run at once over the same rows, each could hold a row the other
     * waits for, a cycle PostgreSQL breaks by failing one of them ({@code deadlock detected}). Those
     * transactions share this lock; the heartbeat takes it alone, for its one statement.
     */
    final java.util.concurrent.locks.ReentrantReadWriteLock rowWriters = new java.util.concurrent.locks.ReentrantReadWriteLock();
    /** Handler timeouts, delayed wake-ups and the history's flush. */
    final ScheduledExecutorService timers;

    Shared(Store store, Dialect dialect, String nodeId, EngineSettings settings, HandlerRegistry registry, CrashPlan crashPlan,
            JobFinisher finisher, CancellationProbe cancellation, EngineObservers events, ScheduledExecutorService timers) {
        this.store = store;
        this.dialect = dialect;
        this.jobs = new JobStore(dialect);
        this.nodeId = nodeId;
        this.settings = settings;
        this.registry = registry;
        this.crashPlan = crashPlan;
        this.finisher = finisher;
        this.cancellation = cancellation;
        this.events = events;
        this.timers = timers;
    }

    /**
     * Runs {@code work} in a transaction that may lock running job rows, never beside the heartbeat's statement.
     * Should this process stop in the middle of it (SIGSTOP, a long pause), the database ends the transaction
     * after half a lease without a statement: the rows it locked (the jobs, batches, chains and flows of a whole
     * batch of outcomes) are free again by the time other nodes take the stopped node's jobs over, instead of
     * holding their completions until the process comes back. What it would have written is retried or refused
     * when the process wakes, fenced as always.
     */
    <T> T inRowWritingTransaction(dev.converge.store.SqlWork<T> work) {
        rowWriters.readLock().lock();
        try {
            return store.inTransaction(c -> {
                dialect.endTransactionIfIdleFor(c, settings.lease().dividedBy(2));
                return work.run(c);
            });
        } finally {
            rowWriters.readLock().unlock();
        }
    }

    /** A finishing context over {@code c}: it may enqueue, and move batches, chains and flows. */
    FinishContext finishContext(Connection c) {
        return new FinishContext(c, jobs, dialect, store.clock().sqlNow());
    }

    /**
     * After {@code committed} committed: wakes the queues it enqueued to now, and sets a timer for
     * each queue it made jobs due in soon. Only delays up to {@link #WAKE_LATER_MAX} get one: a
     * longer wait loses little to the poll, and the timers stay few.
     */
    void wakeAfter(FinishContext committed) {
        committed.queuesToWake().forEach(wakeup::signal);
        committed.queuesToWakeLater().forEach((queue, delays) -> delays.forEach(ms -> {
            if (ms <= WAKE_LATER_MAX.toMillis()) {
                try {
                    timers.schedule(() -> wakeup.signal(queue), ms, TimeUnit.MILLISECONDS);
                } catch (RejectedExecutionException shuttingDown) {
                    // the node is stopping: nothing of it will fetch again
                }
            }
        }));
    }

    /**
     * Forgets a delivery this node held; its worker gets the slot back. The slot is freed even when
     * a newer delivery of the same job has replaced this one in {@code held} (the job expired and
     * came back to this node while the old handler still ran): otherwise that slot leaked for good.
     */
    void forget(RunningJob r) {
        held.remove(r.job.id(), r);
        if (r.end()) {
            r.slots.slotFreed(r);
        }
    }

    static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** The error text kept on a failed job: the exception and its stack, bounded. */
    static String describe(Throwable e) {
        StringWriter sw = new StringWriter();
        e.printStackTrace(new PrintWriter(sw));
        String s = sw.toString();
        return s.length() <= MAX_ERROR_CHARS ? s : s.substring(0, MAX_ERROR_CHARS) + "\n... (truncated)";
    }
}
