package dev.converge.leafsim;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Released when the server closes. Injected latency and hung answers wait on it, so closing a
 * {@link LeafSim} never waits out a ten-second hang and no test leaks a blocked server thread.
 */
final class ServerClosing {
    private final CountDownLatch closed = new CountDownLatch(1);

    /** Waits for the duration or until the server closes; true if it closed. */
    boolean await(Duration duration) {
        try {
            return closed.await(duration.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    void release() {
        closed.countDown();
    }
}
