package dev.converge.testkit;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Holds work back until each of several participants (engines, processes' threads) has started
 * some, so that a test of sharing work cannot be finished by whichever participant came up
 * first. If one never arrives, the others go on after the patience runs out, and the test's own
 * assertions tell.
 */
public final class JoinGate {
    private final CountDownLatch all;
    private final Set<Object> arrived = ConcurrentHashMap.newKeySet();
    private final Duration patience;

    public JoinGate(int participants, Duration patience) {
        this.all = new CountDownLatch(participants);
        this.patience = patience;
    }

    /** Called as {@code participant} starts a unit of work: counts it in the first time, then waits for the rest. */
    public void arrive(Object participant) throws InterruptedException {
        if (arrived.add(participant)) {
            all.countDown();
        }
        all.await(patience.toMillis(), TimeUnit.MILLISECONDS);
    }
}
