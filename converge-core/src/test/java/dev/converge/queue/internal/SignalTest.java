package dev.converge.queue.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A raise wakes one waiting fetcher, not all of them: woken fetchers each run a fetch, and with
 * eight fetchers per queue a single job's notification used to cost eight.
 */
class SignalTest {

    @Test
    void aRaiseWakesOneWaiterAndLeavesTheOthersAsleep() throws Exception {
        Signal signal = new Signal();
        AtomicInteger woken = new AtomicInteger();
        CountDownLatch waiting = new CountDownLatch(3);
        Thread[] waiters = new Thread[3];
        for (int i = 0; i < waiters.length; i++) {
            waiters[i] = new Thread(() -> {
                try {
                    waiting.countDown();
                    signal.await(30_000);
                    woken.incrementAndGet();
                } catch (InterruptedException e) {
                    // stopped by the test
                }
            });
            waiters[i].start();
        }
        waiting.await();
        for (Thread w : waiters) {
            while (w.getState() != Thread.State.TIMED_WAITING) {
                Thread.sleep(1);
            }
        }
        signal.raise();
        long deadline = System.currentTimeMillis() + 2000;
        while (woken.get() == 0 && System.currentTimeMillis() < deadline) {
            Thread.sleep(5);
        }
        Thread.sleep(300); // time for any other waiter that was woken to finish too
        assertThat(woken).as("waiters woken by one raise").hasValue(1);
        for (Thread w : waiters) {
            w.interrupt();
            w.join(2000);
        }
    }
}
