package dev.converge.proof.demo;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code converge demo --keep}: after the report, the demo's server (the API and its dashboard)
 * stays up until released, by Ctrl-C through {@link #shutdownHook} (which then waits a little for
 * the demo to close its server and delete its files) or by {@link #release()}.
 */
public final class KeepOpen {
    private final CountDownLatch released = new CountDownLatch(1);
    private final CountDownLatch closed = new CountDownLatch(1);
    private volatile boolean waiting;

    /** Blocks the demo, its server up, until released. */
    void await() throws InterruptedException {
        waiting = true;
        try {
            released.await();
        } finally {
            waiting = false;
        }
    }

    /** Whether the demo is waiting, its server up (for a caller that releases it). */
    public boolean waiting() {
        return waiting;
    }

    public void release() {
        released.countDown();
    }

    /** Called once the demo has closed its server and deleted its files (or failed). */
    public void closed() {
        closed.countDown();
    }

    /** A JVM shutdown hook (Ctrl-C): releases the demo, then gives it {@code grace} to close. */
    public Thread shutdownHook(Duration grace) {
        return new Thread(() -> {
            release();
            try {
                closed.await(grace.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "converge-demo-keep");
    }
}
