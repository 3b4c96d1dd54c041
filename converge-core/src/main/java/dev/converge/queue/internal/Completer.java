package dev.converge.queue.internal;

import dev.converge.queue.JobState;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes delivery outcomes durable, many per transaction: while one batch commits, the next
 * accumulates, so a busy node pays one commit for many jobs and an idle one adds no delay.
 * Every write is fenced by the delivery's epoch; an outcome whose lease moved on is refused and
 * reported, never forced. When the database is away, outcomes wait here and are retried until
 * their lease would have expired anyway (then the job is redelivered: nothing is lost).
 */
final class Completer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Completer.class);
    private static final int MAX_BATCH = 1000;
    /**
     * Threads committing outcomes of standalone jobs side by side: while one waits for its commit
     * to be flushed, the next batch is already on its way. Standalone jobs touch only their own
     * rows, and each batch updates them in id order, so these transactions cannot deadlock.
     */
    static final int STANDALONE_COMMITTERS = 2;
    /** Failed recordings of one outcome, with the database answering, before the job is parked. */
    static final int POISON_ATTEMPTS = 5;

    record Pending(RunningJob r, Outcome outcome) {
    }

    private final Shared node;
    private final BlockingQueue<Pending> standalone = new LinkedBlockingQueue<>();
    /**
     * Jobs of batches, chains and flows: their hooks update shared rows (a batch's counters), so
     * their outcomes are recorded by one thread, one transaction at a time, as before.
     */
    private final BlockingQueue<Pending> hooked = new LinkedBlockingQueue<>();
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicBoolean down = new AtomicBoolean();
    private volatile boolean running = true;

    Completer(Shared node) {
        this.node = node;
        threads.add(Shared.daemon(() -> loop(hooked), "converge-complete"));
        for (int i = 1; i <= STANDALONE_COMMITTERS; i++) {
            threads.add(Shared.daemon(() -> loop(standalone), "converge-complete-" + i));
        }
    }

    void start() {
        threads.forEach(Thread::start);
    }

    void submit(RunningJob r, Outcome outcome) {
        LeasedJob job = r.job;
        boolean hasHooks = job.batchId() != null || job.chainId() != null || job.flowId() != null;
        (hasHooks ? hooked : standalone).add(new Pending(r, outcome));
    }

    private void loop(BlockingQueue<Pending> queue) {
        List<Pending> batch = new ArrayList<>();
        while (running || !queue.isEmpty()) {
            try {
                Pending first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, MAX_BATCH - 1);
                if (apply(batch) != null) {
                    // one bad row must not hold the others back: go one by one
                    for (Pending p : batch) {
                        applyOneWithRetry(p);
                    }
                }
                batch.clear();
            } catch (InterruptedException e) {
                if (!running && queue.isEmpty()) {
                    return;
                }
            }
        }
    }

    /** Applies a batch in one transaction; null, or why the transaction failed (nothing applied). */
    private RuntimeException apply(List<Pending> batch) {
        List<Completion> items = new ArrayList<>(batch.size());
        // decided once here, for the writes and for settling after the commit alike
        Decision[] decisions = new Decision[batch.size()];
        for (Pending p : batch) {
            HandlerRegistry.Registered<?> reg = node.registry.get(p.r().job.kind());
            Completion item = new Completion(p.r().job, p.outcome(),
                    reg != null ? reg.type().retry() : dev.converge.queue.RetryPolicy.defaults());
            decisions[items.size()] = JobFinisher.decide(item);
            items.add(item);
        }
        FinishContext[] ctx = new FinishContext[1];
        boolean[] applied;
        try {
            applied = node.inRowWritingTransaction(c -> {
                ctx[0] = node.finishContext(c);
                return node.finisher.apply(ctx[0], items, decisions);
            });
        } catch (RuntimeException e) {
            if (down.compareAndSet(false, true)) {
                log.warn("cannot record {} job outcome(s) ({}); holding them and retrying", batch.size(), e.getMessage());
            }
            return e;
        }
        if (down.compareAndSet(true, false)) {
            log.info("job outcomes are being recorded again");
        }
        node.wakeAfter(ctx[0]);
        for (int i = 0; i < batch.size(); i++) {
            settle(batch.get(i), decisions[i], applied[i]);
        }
        return null;
    }

    /**
     * Records one outcome, retrying while the database is away (then the heartbeat cannot extend
     * the lease either, and the outcome is given up when the lease runs out). While the database
     * answers, the heartbeat keeps the lease alive, so an outcome whose recording always fails
     * (a finish hook that throws for this job) would block this thread, and every batch, chain
     * and flow completion behind it, for good: after {@value #POISON_ATTEMPTS} failures with the
     * database answering, the job is parked as failed with the error, and the thread moves on.
     */
    private void applyOneWithRetry(Pending p) {
        long backoff = 50;
        int failures = 0;
        while (true) {
            RuntimeException error = apply(List.of(p));
            if (error == null) {
                return;
            }
            if (p.r().leaseExpiredLocally()) {
                node.counters.abandoned.increment();
                log.warn("job {}: gave up recording its outcome after its lease ran out; it will be redelivered",
                        p.r().job.lease());
                node.forget(p.r());
                return;
            }
            if (++failures >= POISON_ATTEMPTS && databaseAnswers()) {
                park(p, error);
                return;
            }
            try {
                Thread.sleep(backoff);
            } catch (InterruptedException e) {
                if (!running) {
                    node.forget(p.r());
                    return;
                }
            }
            backoff = Math.min(2000, backoff * 2);
        }
    }

    private boolean databaseAnswers() {
        try {
            node.store.withConnection(node.jobs::databaseNow);
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Fails the job without its hooks, keeping why its outcome could not be recorded; fenced like any outcome. */
    private void park(Pending p, RuntimeException cause) {
        RunningJob r = p.r();
        String error = "its outcome (" + p.outcome() + ") could not be recorded; parked as failed without telling its "
                + "batch, chain or flow: " + Shared.describe(cause);
        try {
            boolean landed = node.store.withConnection(c -> node.jobs.finish(c, List.of(new Decision.Finish(
                    r.job.lease(), JobState.FAILED, error)), node.store.clock().sqlNow())[0]);
            if (landed) {
                node.counters.failed.increment();
                log.warn("job {} ({}): recording its outcome failed {} times while the database answered ({}); "
                        + "parked as failed with that error", r.job.lease(), r.job.kind(), POISON_ATTEMPTS,
                        cause.getMessage());
            } else {
                node.counters.leaseLost.increment();
                log.warn("job {} ({}): its outcome could not be recorded, and its lease has moved on", r.job.lease(),
                        r.job.kind());
            }
        } catch (RuntimeException e) {
            node.counters.abandoned.increment();
            log.warn("job {} ({}): neither its outcome nor its parking could be recorded ({}); it will be redelivered "
                    + "when its lease runs out", r.job.lease(), r.job.kind(), e.getMessage());
        }
        node.forget(r);
    }

    /**
     * Each retry of a failed attempt at INFO (the attempt, the error's first line, when it runs
     * again); a release without an error (the handler asked to come back, or shutdown handed the
     * job back) at DEBUG.
     */
    private void logRetry(LeasedJob job, Decision.Retry retry) {
        if (retry.error() != null && !retry.refundAttempt()) {
            if (log.isInfoEnabled()) {
                log.info("job {} ({}) attempt {} of {} failed, retrying in {} (about {}): {}", job.id(), job.kind(),
                        job.attempt(), job.maxAttempts(), java.time.Duration.ofMillis(retry.delayMs()),
                        node.store.clock().localNow().plusMillis(retry.delayMs()), firstLine(retry.error()));
            }
        } else if (log.isDebugEnabled()) {
            log.debug("job {} ({}) released after attempt {} of {}, runs again in {}{}", job.id(), job.kind(),
                    job.attempt(), job.maxAttempts(), java.time.Duration.ofMillis(retry.delayMs()),
                    retry.refundAttempt() ? " (the attempt is not counted)" : "");
        }
    }

    private void settle(Pending p, Decision decision, boolean applied) {
        RunningJob r = p.r();
        if (!applied) {
            node.counters.leaseLost.increment();
            node.events.settled(r.job, "lease_lost");
            log.warn("job {} ({}): outcome {} refused: the lease had moved on (expired and taken over); "
                    + "this delivery stops here", r.job.lease(), r.job.kind(), p.outcome().getClass().getSimpleName());
        } else {
            if (decision instanceof Decision.Finish f) {
                node.events.settled(r.job, f.state().sql());
                if (f.state() == JobState.SUCCEEDED) {
                    node.counters.succeeded.increment();
                } else if (f.state() == JobState.FAILED) {
                    node.counters.failed.increment();
                    log.warn("job {} ({}) failed for good after attempt {}: {}", r.job.id(), r.job.kind(),
                            r.job.attempt(), firstLine(f.error()));
                } else {
                    node.counters.cancelled.increment();
                }
            } else if (decision instanceof Decision.Retry retry) {
                node.counters.retried.increment();
                node.events.settled(r.job, "retried");
                logRetry(r.job, retry);
            }
        }
        node.forget(r);
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    /** Waits for queued outcomes to be recorded, then stops. */
    @Override
    public void close() {
        running = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (Thread t : threads) {
            try {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (t.isAlive()) {
                t.interrupt();
            }
        }
    }
}
