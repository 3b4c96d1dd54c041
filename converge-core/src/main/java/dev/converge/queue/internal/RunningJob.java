package dev.converge.queue.internal;

/**
 * One leased delivery held by this node, from lease to durable completion. The lease deadline is
 * kept in local monotonic time and only moved forward by heartbeats that the store confirmed,
 * so a worker that was paused (SIGSTOP, GC, a frozen VM) sees its lease as lost when it wakes,
 * before its next side effect, without asking anyone.
 */
final class RunningJob {
    final LeasedJob job;
    /** The worker whose slot this delivery takes. */
    final SlotOwner slots;
    volatile long leaseDeadlineNanos;
    volatile boolean lost;
    volatile String lostWhy;
    volatile Thread thread;
    volatile boolean timedOut;
    volatile boolean shutdownInterrupted;
    volatile boolean started;
    /** Its outcome was handed to the completer (it no longer takes a handler slot). */
    volatile boolean completing;
    /** Guarded by this object (not an AtomicBoolean of its own: one object less for every delivery). */
    private boolean over;

    RunningJob(LeasedJob job, SlotOwner slots, long leaseDeadlineNanos) {
        this.job = job;
        this.slots = slots;
        this.leaseDeadlineNanos = leaseDeadlineNanos;
    }

    void markLost(String why) {
        if (!lost) {
            lostWhy = why;
            lost = true;
            Thread t = thread;
            if (t != null) {
                t.interrupt();
            }
        }
    }

    /** True for the one caller that ends this delivery (its slot is freed exactly once). */
    synchronized boolean end() {
        if (over) {
            return false;
        }
        over = true;
        return true;
    }

    boolean leaseExpiredLocally() {
        return System.nanoTime() - leaseDeadlineNanos > 0;
    }

    /** Where a delivery's slot goes back when it ends. */
    interface SlotOwner {
        void slotFreed(RunningJob r);
    }
}
