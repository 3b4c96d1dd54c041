package dev.converge.queue.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class HeldSlotsTest {

    @Test
    void aFetchReservesAtMostWhatIsFreeAndTheLimit() {
        HeldSlots slots = new HeldSlots(40, 100, new Signal());
        assertThat(slots.reserve(100, false)).isEqualTo(40);
        assertThat(slots.reserve(100, false)).isZero();
        slots.unreserve(15);
        assertThat(slots.reserve(10, false)).isEqualTo(10);
        assertThat(slots.held()).isEqualTo(35);
    }

    @Test
    void aWaitingFetcherIsWokenOnceEnoughSlotsAreFree() throws Exception {
        Signal signal = new Signal();
        HeldSlots slots = new HeldSlots(40, 100, signal); // a fetch is worth it from 10 free slots
        assertThat(slots.reserve(100, true)).isEqualTo(40);
        for (int i = 0; i < 5; i++) {
            slots.freed();
        }
        assertThat(slots.reserve(100, true)).as("5 free, handlers busy: wait").isZero();
        for (int i = 0; i < 4; i++) {
            slots.freed();
        }
        assertThat(signal.await(0)).as("9 free: not yet").isFalse();
        slots.freed();
        assertThat(signal.await(0)).as("10 free: wake the fetcher").isTrue();
        assertThat(slots.reserve(100, true)).isEqualTo(10);
        slots.freed();
        assertThat(slots.reserve(100, true)).as("1 free, handlers busy: wait").isZero();
        assertThat(slots.reserve(100, false)).as("1 free, handlers idle: worth a fetch").isEqualTo(1);
    }

    @Test
    void outcomesWaitingForTheirCommitFreeHandlerSlotsButAreCappedToo() throws Exception {
        Signal signal = new Signal();
        HeldSlots slots = new HeldSlots(2, 1, signal); // at most 8 outcomes waiting for their commit
        for (int round = 0; round < 4; round++) {
            assertThat(slots.reserve(1, false)).isEqualTo(1);
            assertThat(slots.reserve(1, false)).isEqualTo(1);
            slots.handedToCompleter();
            slots.handedToCompleter();
        }
        assertThat(slots.held()).isZero();
        assertThat(slots.reserve(1, false)).as("8 outcomes pending: no more fetching").isZero();
        slots.freed(true);
        assertThat(signal.await(0)).as("below the cap again: wake the fetcher").isTrue();
        assertThat(slots.reserve(1, false)).isEqualTo(1);
    }

    @Test
    void parallelFetchersNeverHoldMoreThanTheBound() throws Exception {
        HeldSlots slots = new HeldSlots(64, 16, new Signal());
        AtomicInteger over = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            Thread th = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < 20_000; i++) {
                    int got = slots.reserve(16, false);
                    if (slots.held() > 64) {
                        over.incrementAndGet();
                    }
                    for (int k = 0; k < got; k++) {
                        slots.freed();
                    }
                }
            });
            th.start();
            threads.add(th);
        }
        go.countDown();
        for (Thread th : threads) {
            th.join();
        }
        assertThat(over).hasValue(0);
        assertThat(slots.held()).isZero();
    }

    @Test
    void anAdaptivePrefetchGrowsWithFastJobsAndFallsBackToTheHandlersPaceWithSlowOnes() {
        HeldSlots slots = new HeldSlots(16, 0, HeldSlots.adaptiveCap(16, 100), 100, new Signal());
        assertThat(slots.max()).as("starts at the handlers, nothing leased ahead").isEqualTo(16);
        long t = System.nanoTime();

        // fast jobs: 2,000 handed over in 100 ms, 20,000 a second, 100 ms of which is 2,000: capped at 1,000
        for (int i = 0; i < 2000; i++) {
            slots.reserve(1, false);
            slots.handedToCompleter();
        }
        t += 100_000_000L;
        slots.adapt(t);
        assertThat(slots.max()).isEqualTo(16 + 1000);
        slots.adapt(t + 1_000_000L);
        assertThat(slots.max()).as("re-sized at most once a window").isEqualTo(16 + 1000);

        // slow jobs: 16 handlers, one second each: 16 a second, 1.6 per 100 ms: down to that pace (1), by halves
        int[] seen = new int[11];
        for (int w = 0; w < seen.length; w++) {
            t += 1_000_000_000L;
            for (int i = 0; i < 16; i++) {
                slots.handedToCompleter();
            }
            slots.adapt(t);
            seen[w] = slots.max() - 16;
        }
        assertThat(seen).containsExactly(500, 250, 125, 62, 31, 15, 7, 3, 1, 1, 1);
    }

    @Test
    void aFixedPrefetchNeverMoves() {
        HeldSlots slots = new HeldSlots(16 + 4, 100, new Signal());
        long t = System.nanoTime();
        for (int i = 0; i < 5000; i++) {
            slots.handedToCompleter();
        }
        slots.adapt(t + 100_000_000L);
        assertThat(slots.max()).isEqualTo(20);
    }
}
