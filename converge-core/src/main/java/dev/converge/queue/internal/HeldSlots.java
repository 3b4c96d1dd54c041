package dev.converge.queue.internal;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How many deliveries of one queue this node holds: those leased and not yet run to an outcome,
 * against the most it may hold (handler threads plus prefetch), and those whose outcome waits to
 * be made durable, against a cap of their own. Fetchers reserve slots before they lease, so
 * parallel fetchers cannot together overshoot the bounds.
 *
 * <p>A delivery leaves its handler slot when its outcome is handed to the completer, not when the
 * outcome is durable: counting the commit's latency against prefetch capped a busy node at about
 * (handlers + prefetch) / (fetch + commit latency) jobs a second, with its handlers idle.
 *
 * <p>Defends against a lost wake-up: a fetcher that finds too few free slots says it is waiting
 * before it looks again, and a freed slot raises the queue's signal only when someone waits
 * and enough slots are free. (The first version woke the fetcher only when the node went from
 * full to one free slot; a fetcher that had gone back to sleep with a few slots free then slept
 * a whole poll, and throughput fell to about one node's worth of jobs per poll.)
 *
 * <p>Prefetch, unless set, adapts: it is as many jobs as the handlers ran in the last
 * {@value #BACKLOG_MS} ms (at most {@link #adaptiveCap}). Slow jobs keep it near zero, so a node
 * whose handlers are busy never hoards work another node's free handler could run now, nor jobs
 * that would die with it, or whose lease would tick away in its local queue; fast jobs raise it
 * until fetch round trips no longer starve the handlers. (A fixed prefetch of the handler count
 * held 16 handlers of no-op jobs at about 0.26 of a plain SKIP LOCKED loop: 32 jobs per
 * fetch-and-commit round trip. A floor of the handler count, kept until slow jobs showed it,
 * held a second job behind every busy handler of an I/O-bound node: in a chaos run 18 deliveries
 * of site steps died unstarted with their node.)
 */
final class HeldSlots {
    /** How much of the handlers' recent work an adaptive prefetch may lease ahead. */
    static final long BACKLOG_MS = 100;
    /** How often an adaptive prefetch is re-sized. */
    static final long WINDOW_MS = 50;

    private final int handlers;
    private final int minPrefetch;
    private final int maxPrefetch;
    private final int fetchLimit;
    private final Signal signal;
    private final int maxCompleting;
    private final AtomicInteger held = new AtomicInteger();
    private final AtomicInteger completing = new AtomicInteger();
    private final AtomicLong handedOver = new AtomicLong();
    private volatile int max;
    private volatile int fetchThreshold;
    private volatile boolean fetcherWaiting;
    private long windowStart = System.nanoTime();
    private long windowHanded;

    /** A fixed bound: {@code max} deliveries held (handlers plus prefetch). */
    HeldSlots(int max, int fetchLimit, Signal signal) {
        this(max, 0, 0, fetchLimit, signal);
    }

    /**
     * An adaptive bound when {@code maxPrefetch > minPrefetch}: handlers plus a prefetch between
     * the two, sized to the handlers' recent pace.
     */
    HeldSlots(int handlers, int minPrefetch, int maxPrefetch, int fetchLimit, Signal signal) {
        this.handlers = handlers;
        this.minPrefetch = minPrefetch;
        this.maxPrefetch = Math.max(minPrefetch, maxPrefetch);
        this.fetchLimit = fetchLimit;
        this.maxCompleting = Math.max(4 * (handlers + this.maxPrefetch), 2 * fetchLimit);
        this.signal = signal;
        resize(handlers + minPrefetch);
    }

    /** The cap of an adaptive prefetch: enough for a few full fetches in flight. */
    static int adaptiveCap(int handlers, int fetchLimit) {
        return Math.min(10_000, Math.max(handlers, 10 * fetchLimit));
    }

    private void resize(int newMax) {
        this.max = newMax;
        // while handlers still have work queued, fetch only a useful batch: one job a round trip wastes them
        this.fetchThreshold = Math.max(1, Math.min(fetchLimit, newMax / 4));
    }

    /** Re-sizes an adaptive prefetch to the handlers' pace over the last window; called by fetchers. */
    void adapt(long nowNanos) {
        if (maxPrefetch == minPrefetch) {
            return;
        }
        synchronized (this) {
            long elapsed = nowNanos - windowStart;
            if (elapsed < TimeUnit.MILLISECONDS.toNanos(WINDOW_MS)) {
                return;
            }
            long handed = handedOver.get();
            long ran = handed - windowHanded;
            windowStart = nowNanos;
            windowHanded = handed;
            long want = ran * TimeUnit.MILLISECONDS.toNanos(BACKLOG_MS) / elapsed;
            int prefetch = (int) Math.max(minPrefetch, Math.min(maxPrefetch, want));
            // grow at once, shrink by halves: one slow window must not choke a busy queue
            int current = max - handlers;
            resize(handlers + (prefetch >= current ? prefetch : Math.max(prefetch, current / 2)));
        }
    }

    int max() {
        return max;
    }

    /**
     * Reserves up to {@code limit} slots for a fetch; 0 when too few are free (then the caller
     * waits on the signal, which {@link #freed} raises once enough are).
     */
    int reserve(int limit, boolean handlersBusy) {
        while (true) {
            int now = held.get();
            int free = max - now;
            if (free <= 0 || (free < fetchThreshold && handlersBusy) || completing.get() >= maxCompleting) {
                if (fetcherWaiting) {
                    return 0;
                }
                fetcherWaiting = true; // then look once more: a slot freed meanwhile may not have seen the flag
                continue;
            }
            int want = Math.min(free, limit);
            if (held.compareAndSet(now, now + want)) {
                return want;
            }
        }
    }

    /** Gives back reserved slots a fetch did not fill. */
    void unreserve(int n) {
        if (n > 0) {
            release(n);
        }
    }

    /** A delivery's outcome went to the completer: its handler slot is free, its completion pending. */
    void handedToCompleter() {
        handedOver.incrementAndGet();
        completing.incrementAndGet();
        release(1);
    }

    /** One delivery is over (outcome durable, refused or abandoned); {@code completing}: it had been handed over. */
    void freed(boolean wasCompleting) {
        if (!wasCompleting) {
            release(1);
        } else if (completing.decrementAndGet() < maxCompleting && fetcherWaiting) {
            wakeIfWorthIt(max - held.get());
        }
    }

    /** Test convenience: a delivery that never reached the completer is over. */
    void freed() {
        freed(false);
    }

    private void release(int n) {
        wakeIfWorthIt(max - held.addAndGet(-n));
    }

    private void wakeIfWorthIt(int free) {
        if (fetcherWaiting && free >= fetchThreshold && completing.get() < maxCompleting) {
            fetcherWaiting = false;
            signal.raise();
        }
    }

    int held() {
        return held.get();
    }
}
