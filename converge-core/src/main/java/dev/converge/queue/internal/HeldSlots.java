package dev.converge.queue.internal;

import java.util.concurrent.atomic.AtomicInteger;

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
 */
final class HeldSlots {
    private final int max;
    private final int fetchThreshold;
    private final Signal signal;
    private final int maxCompleting;
    private final AtomicInteger held = new AtomicInteger();
    private final AtomicInteger completing = new AtomicInteger();
    private volatile boolean fetcherWaiting;

    HeldSlots(int max, int fetchLimit, Signal signal) {
        this.max = max;
        this.maxCompleting = Math.max(4 * max, 2 * fetchLimit);
        // while handlers still have work queued, fetch only a useful batch: one job a round trip wastes them
        this.fetchThreshold = Math.max(1, Math.min(fetchLimit, max / 4));
        this.signal = signal;
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
