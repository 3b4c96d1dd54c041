package dev.converge.proof.bench;

import java.util.Arrays;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;

/**
 * Enqueue-to-handler-start on an idle queue, one job at a time: the time from just before the
 * enqueuing call to the moment a handler starts the job. On PostgreSQL the jobs are enqueued by
 * another engine with its own pool, so the worker can only learn of them by LISTEN/NOTIFY (or
 * by its poll, which is set far longer than any sample); on H2 the wake-up is in-process.
 */
final class PickupLatency {
    /** The handler hands the start instant of each job over here. */
    static final SynchronousQueue<Long> STARTS = new SynchronousQueue<>();

    private PickupLatency() {
    }

    /** Enqueues probe {@code i}: on its own, or inside a transaction the caller commits. */
    interface Enqueue {
        void probe(int i) throws Exception;
    }

    /** Returns the samples in milliseconds, sorted. */
    static double[] measure(Enqueue enqueuer, int samples) throws Exception {
        double[] ms = new double[samples];
        for (int i = 0; i < samples; i++) {
            Thread.sleep(5); // the worker goes back to waiting: the queue is idle again
            long before = System.nanoTime();
            enqueuer.probe(i);
            Long started = STARTS.poll(30, TimeUnit.SECONDS);
            if (started == null) {
                throw new IllegalStateException("pickup sample " + i + " was not started within 30s");
            }
            ms[i] = (started - before) / 1e6;
        }
        Arrays.sort(ms);
        return ms;
    }

    static double percentile(double[] sorted, double p) {
        int idx = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, idx))];
    }
}
