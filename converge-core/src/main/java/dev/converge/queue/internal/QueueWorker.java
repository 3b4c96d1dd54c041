package dev.converge.queue.internal;

import dev.converge.crash.CrashPlan;
import dev.converge.crash.CrashPoint;
import dev.converge.crash.SimulatedCrash;
import dev.converge.store.StoreConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Works one queue on this node: fetchers lease due jobs in batches (SKIP LOCKED), a fixed pool of
 * handler threads runs them, and the shared completer makes their outcomes durable. What the node
 * holds is bounded twice: deliveries not yet run (handlers plus prefetch), and outcomes not yet
 * durable (see {@link HeldSlots}).
 *
 * <p>A busy queue has more than one fetcher (one per two handlers, up to eight, and no more than
 * half the store's pool less two): each lease is a transaction that must be flushed to
 * disk before its jobs may run (a lost lease commit would hand the same epoch out twice), so one
 * fetcher would spend most of its time waiting for the flush while the handlers starve. (Two
 * fetchers for 16 handlers of no-op jobs ran at about 0.6 of a 16-thread SKIP LOCKED loop on the
 * same database; eight, at about 0.9.) A wake-up rouses one fetcher, not all: the first fetcher
 * polls, the others sleep until woken, and a fetcher whose fetch came back full wakes the next,
 * so a trickle of jobs costs one fetch each while a busy queue soon has every fetcher at work.
 */
public final class QueueWorker {
    private static final Logger log = LoggerFactory.getLogger(QueueWorker.class);
    /** Handler threads per extra fetcher, up to {@link #MAX_FETCHERS}. */
    private static final int HANDLERS_PER_FETCHER = 2;
    private static final int MAX_FETCHERS = 8;
    /** How long a fetcher other than the first sleeps without a wake-up (the first one polls). */
    private static final long HELPER_IDLE_MS = 60_000;

    private final Shared node;
    private final Invoker invoker;
    private final Completer completer;
    /** This worker's slots, as its deliveries know it. */
    private final RunningJob.SlotOwner owner = this::slotFreed;
    private final String queue;
    private final int concurrency;
    private final ThreadPoolExecutor executor;
    private final boolean ownThreads;
    private final Signal signal;
    private final HeldSlots slots;
    private final List<Thread> fetchers = new ArrayList<>();
    private final AtomicBoolean down = new AtomicBoolean();
    private volatile boolean running;

    /** A queue worker with a fixed prefetch ({@code prefetch >= 0}) or an adaptive one ({@code prefetch < 0}). */
    QueueWorker(Shared node, Invoker invoker, Completer completer, String queue, int concurrency, int prefetch) {
        this(node, invoker, completer, queue, concurrency, prefetch, null);
    }

    /** As above, its handlers on threads of {@code handlerThreads} (null: platform daemon threads of its own). */
    QueueWorker(Shared node, Invoker invoker, Completer completer, String queue, int concurrency, int prefetch,
            ThreadFactory handlerThreads) {
        this.node = node;
        this.invoker = invoker;
        this.completer = completer;
        this.queue = queue;
        this.concurrency = concurrency;
        AtomicInteger n = new AtomicInteger();
        this.ownThreads = handlerThreads == null;
        ThreadFactory threads = handlerThreads == null
                ? r -> Shared.daemon(r, "converge-" + queue + "-" + n.incrementAndGet())
                : r -> {
                    Thread t = handlerThreads.newThread(r);
                    if (t == null) {
                        throw new IllegalStateException("the handler thread factory of queue " + queue
                                + " gave no thread: a handler of this queue cannot start");
                    }
                    return t;
                };
        this.executor = new ThreadPoolExecutor(concurrency, concurrency, 0, TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(), threads);
        this.signal = node.wakeup.signalFor(queue);
        int fetchLimit = node.settings.fetchLimit();
        this.slots = prefetch >= 0
                ? new HeldSlots(concurrency + prefetch, fetchLimit, signal)
                : new HeldSlots(concurrency, 0, HeldSlots.adaptiveCap(concurrency, fetchLimit), fetchLimit, signal);
        // each fetch holds a pooled connection for its round trip: at most half the pool, less two, fetches at once
        StoreConfig pool = node.store.config();
        int poolBound = pool == null ? MAX_FETCHERS : Math.max(1, (pool.maxPoolSize() - 2) / 2);
        int count = Math.min(Math.min(MAX_FETCHERS, poolBound), Math.max(1, concurrency / HANDLERS_PER_FETCHER));
        for (int i = 1; i <= count; i++) {
            boolean polls = i == 1;
            fetchers.add(Shared.daemon(() -> fetchLoop(polls), "converge-fetch-" + queue + (count > 1 ? "-" + i : "")));
        }
    }

    public String queue() {
        return queue;
    }

    public int concurrency() {
        return concurrency;
    }

    /**
     * With a handler thread factory of the user's, takes one thread from it now: a factory that gives none
     * fails the engine's start, before anything of it runs, instead of the first job's delivery.
     */
    public void prepare() {
        if (!ownThreads) {
            executor.prestartCoreThread();
        }
    }

    public void start() {
        running = true;
        fetchers.forEach(Thread::start);
    }

    private void fetchLoop(boolean polls) {
        long idleMs = polls ? node.settings.poll().toMillis() : Math.max(HELPER_IDLE_MS, node.settings.poll().toMillis());
        long backoff = 50;
        while (running) {
            int reserved = 0;
            try {
                slots.adapt(System.nanoTime());
                reserved = slots.reserve(node.settings.fetchLimit(), !executor.getQueue().isEmpty());
                if (reserved == 0) {
                    signal.await(idleMs);
                    continue;
                }
                int want = reserved;
                long sentAt = System.nanoTime();
                List<LeasedJob> got = node.store.withConnection(c -> node.jobs.lease(c, queue, node.registry.handledKinds(), want,
                        node.nodeId, node.settings.lease().toMillis(), node.store.clock().sqlNow()));
                slots.unreserve(want - got.size());
                reserved = 0;
                if (down.compareAndSet(true, false)) {
                    log.info("queue {}: database reachable again, fetching resumed", queue);
                }
                backoff = 50;
                long deadline = sentAt + node.settings.lease().toNanos();
                node.counters.leased.add(got.size()); // counted before any of them can finish, as one
                for (LeasedJob job : got) {
                    RunningJob r = new RunningJob(job, owner, deadline);
                    node.held.put(job.id(), r);
                    executor.execute(() -> run(r));
                }
                if (got.isEmpty()) {
                    // a short fetch loops once more (rows may have been skipped as locked by another
                    // fetcher or node); only an empty one waits for a wake-up or the poll
                    signal.await(idleMs);
                } else if (got.size() == want && fetchers.size() > 1) {
                    signal.raise(); // a full fetch: there is likely more, wake another fetcher to help
                }
            } catch (InterruptedException e) {
                slots.unreserve(reserved);
                if (!running) {
                    return;
                }
            } catch (RuntimeException e) {
                slots.unreserve(reserved);
                if (!running) {
                    return;
                }
                if (down.compareAndSet(false, true)) {
                    log.warn("queue {}: cannot fetch jobs ({}); backing off until the database answers", queue,
                            e.getMessage());
                }
                sleepQuietly(backoff);
                backoff = Math.min(5000, backoff * 2);
            }
        }
    }

    private void run(RunningJob r) {
        if (!running && !r.started) {
            // shutting down before it started: give it back without counting an attempt
            handOver(r, new Outcome.Released(0, true));
            return;
        }
        if (r.lost) {
            abandon(r, "lease lost before the handler started");
            return;
        }
        if (r.leaseExpiredLocally()) {
            // leased ahead of a free handler, and no heartbeat confirmed the lease meanwhile: by the
            // database's clock the job may already be another node's. It expires and is redelivered.
            abandon(r, "its lease ran out before a handler was free (heartbeats not confirmed meanwhile)");
            return;
        }
        r.thread = Thread.currentThread();
        r.started = true;
        Outcome outcome;
        try {
            outcome = invoker.invoke(r);
            r.thread = null;
            Thread.interrupted();
            if (outcome != null && !r.lost && node.crashPlan != CrashPlan.NONE) {
                node.crashPlan.reached(CrashPoint.BEFORE_COMPLETE, r.job.lease());
            }
        } catch (SimulatedCrash crash) {
            r.thread = null;
            Thread.interrupted();
            abandon(r, crash.getMessage());
            return;
        }
        if (outcome == null || r.lost) {
            node.counters.leaseLost.increment();
            abandon(r, "lease lost: " + r.lostWhy);
            return;
        }
        handOver(r, outcome);
    }

    private void handOver(RunningJob r, Outcome outcome) {
        r.completing = true;
        slots.handedToCompleter();
        completer.submit(r, outcome);
    }

    private void abandon(RunningJob r, String why) {
        node.counters.abandoned.increment();
        log.info("job {} ({}) abandoned without an outcome: {}", r.job.lease(), r.job.kind(), why);
        node.forget(r);
    }

    private void slotFreed(RunningJob r) {
        slots.freed(r.completing);
    }

    /** Stops fetching; jobs leased but not started are given back; returns how many. */
    public int stopFetching() {
        running = false;
        fetchers.forEach(Thread::interrupt);
        signal.raise();
        try {
            for (Thread f : fetchers) {
                f.join(5000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<Runnable> pending = new ArrayList<>();
        executor.getQueue().drainTo(pending);
        executor.shutdown();
        for (Runnable p : pending) {
            p.run(); // each one sees running == false and gives its job back
        }
        return pending.size();
    }

    /** Handlers of this queue running now (started, outcome not yet handed to the completer). */
    public int runningHandlers() {
        int n = 0;
        for (RunningJob r : node.held.values()) {
            if (r.slots == owner && r.started && !r.completing) {
                n++;
            }
        }
        return n;
    }

    /** Interrupts handlers still running after the grace period; they give their jobs back. Returns how many. */
    public int interruptRunning() {
        int n = 0;
        for (RunningJob r : node.held.values()) {
            if (r.slots == owner && r.started && r.thread != null) {
                r.shutdownInterrupted = true;
                r.thread.interrupt();
                n++;
            }
        }
        return n;
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
