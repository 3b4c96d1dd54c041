package dev.converge.queue.internal;

import dev.converge.crash.CrashPoint;
import dev.converge.crash.SimulatedCrash;
import dev.converge.queue.LeasedJob;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Works one queue on this node: a fetcher leases due jobs in batches (SKIP LOCKED), a fixed pool
 * of handler threads runs them, and the shared completer makes their outcomes durable. A slot
 * stays taken from lease until the outcome is durable, which bounds what the node holds.
 */
public final class QueueWorker {
    private static final Logger log = LoggerFactory.getLogger(QueueWorker.class);

    private final EngineRuntime rt;
    private final String queue;
    private final int concurrency;
    private final int maxHeld;
    private final ThreadPoolExecutor executor;
    private final AtomicInteger heldHere = new AtomicInteger();
    private final Signal signal;
    private final Thread fetcher;
    private volatile boolean running;

    public QueueWorker(EngineRuntime rt, String queue, int concurrency, int prefetch) {
        this.rt = rt;
        this.queue = queue;
        this.concurrency = concurrency;
        this.maxHeld = concurrency + prefetch;
        AtomicInteger n = new AtomicInteger();
        this.executor = new ThreadPoolExecutor(concurrency, concurrency, 0, TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(), r -> EngineRuntime.daemon(r, "converge-" + queue + "-" + n.incrementAndGet()));
        this.signal = rt.wakeup.signalFor(queue);
        this.fetcher = EngineRuntime.daemon(this::fetchLoop, "converge-fetch-" + queue);
    }

    public String queue() {
        return queue;
    }

    public int concurrency() {
        return concurrency;
    }

    public void start() {
        running = true;
        fetcher.start();
    }

    private void fetchLoop() {
        long backoff = 50;
        boolean down = false;
        // wait for a useful batch of free slots unless nothing is queued locally
        int threshold = Math.max(1, Math.min(rt.settings.fetchLimit(), maxHeld / 4));
        while (running) {
            try {
                int free = maxHeld - heldHere.get();
                if (free <= 0 || (free < threshold && !executor.getQueue().isEmpty())) {
                    signal.await(rt.settings.poll().toMillis());
                    continue;
                }
                int want = Math.min(free, rt.settings.fetchLimit());
                long sentAt = System.nanoTime();
                List<LeasedJob> got = rt.store.withConnection(c -> rt.jobs.lease(c, queue, want, rt.nodeId,
                        rt.settings.lease().toMillis(), rt.store.clock().sqlNow()));
                if (down) {
                    log.info("queue {}: database reachable again, fetching resumed", queue);
                    down = false;
                    backoff = 50;
                }
                long deadline = sentAt + rt.settings.lease().toNanos();
                for (LeasedJob job : got) {
                    RunningJob r = new RunningJob(job, this, deadline);
                    heldHere.incrementAndGet();
                    rt.held.put(job.id(), r);
                    rt.counters.leased.increment();
                    executor.execute(() -> run(r));
                }
                if (got.size() < want) {
                    signal.await(rt.settings.poll().toMillis());
                }
            } catch (InterruptedException e) {
                if (!running) {
                    return;
                }
            } catch (RuntimeException e) {
                if (!running) {
                    return;
                }
                if (!down) {
                    log.warn("queue {}: cannot fetch jobs ({}); backing off until the database answers", queue,
                            e.getMessage());
                    down = true;
                }
                sleepQuietly(backoff);
                backoff = Math.min(5000, backoff * 2);
            }
        }
    }

    private void run(RunningJob r) {
        if (!running && !r.started) {
            // shutting down before it started: give it back without counting an attempt
            rt.completer.submit(r, new Outcome.Released(0, true));
            return;
        }
        if (r.lost) {
            abandon(r, "lease lost before the handler started");
            return;
        }
        r.thread = Thread.currentThread();
        r.started = true;
        Outcome outcome;
        try {
            outcome = rt.invoke(r);
            r.thread = null;
            Thread.interrupted();
            if (outcome != null && !r.lost) {
                rt.crashPlan.reached(CrashPoint.BEFORE_COMPLETE, r.job.lease());
            }
        } catch (SimulatedCrash crash) {
            r.thread = null;
            Thread.interrupted();
            abandon(r, crash.getMessage());
            return;
        }
        if (outcome == null || r.lost) {
            rt.counters.leaseLost.increment();
            abandon(r, "lease lost: " + r.lostWhy);
            return;
        }
        rt.completer.submit(r, outcome);
    }

    private void abandon(RunningJob r, String why) {
        rt.counters.abandoned.increment();
        log.info("job {} ({}) abandoned without an outcome: {}", r.job.lease(), r.job.kind(), why);
        rt.forget(r);
    }

    void slotFreed() {
        int before = heldHere.getAndDecrement();
        if (before >= maxHeld) {
            signal.raise();
        }
    }

    /** Stops fetching; jobs not yet started are given back. */
    public void stopFetching() {
        running = false;
        fetcher.interrupt();
        signal.raise();
        try {
            fetcher.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<Runnable> pending = new ArrayList<>();
        executor.getQueue().drainTo(pending);
        executor.shutdown();
        for (Runnable p : pending) {
            p.run(); // each one sees running == false and gives its job back
        }
    }

    /** Interrupts handlers still running after the grace period; they give their jobs back. */
    public void interruptRunning() {
        for (RunningJob r : rt.held.values()) {
            if (r.worker == this && r.started && r.thread != null) {
                r.shutdownInterrupted = true;
                r.thread.interrupt();
            }
        }
    }

    public boolean awaitHandlers(long millis) throws InterruptedException {
        return executor.awaitTermination(millis, TimeUnit.MILLISECONDS);
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
