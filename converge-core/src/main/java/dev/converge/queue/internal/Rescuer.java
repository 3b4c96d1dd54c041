package dev.converge.queue.internal;

import dev.converge.queue.LeasedJob;
import dev.converge.queue.RetryPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts back jobs whose lease expired by the database clock (their worker was killed, paused or
 * cut off), or fails them when that was their last attempt. Any number of nodes may run it at
 * once: rows are locked SKIP LOCKED and every change is fenced by the expired delivery's epoch,
 * so a job that completed in the meantime is left alone.
 */
final class Rescuer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Rescuer.class);
    static final String EXPIRED = "lease expired: the worker holding it stopped heartbeating (killed, paused or cut off)";

    private final EngineRuntime rt;
    private final ScheduledExecutorService timer;

    Rescuer(EngineRuntime rt) {
        this.rt = rt;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> EngineRuntime.daemon(r, "converge-rescue"));
    }

    void start() {
        long every = rt.settings.rescue().toMillis();
        long first = ThreadLocalRandom.current().nextLong(every / 2 + 1) + every / 2;
        timer.scheduleWithFixedDelay(this::safeRescue, first, every, TimeUnit.MILLISECONDS);
    }

    private void safeRescue() {
        try {
            rescueOnce();
        } catch (RuntimeException e) {
            log.debug("rescue pass failed: {}", e.getMessage());
        }
    }

    /** One pass; returns how many expired deliveries it settled. */
    int rescueOnce() {
        int[] n = new int[1];
        List<String> wake = new ArrayList<>();
        rt.store.inTransaction(c -> {
            FinishContext tx = new FinishContext(c, rt.jobs, rt.store.dialect(), rt.store.clock().sqlNow());
            List<LeasedJob> expired = rt.jobs.expiredLeases(c, 500, tx.now());
            List<Completion> items = new ArrayList<>(expired.size());
            for (LeasedJob job : expired) {
                // redelivered at once; only a job with no attempts left fails here
                items.add(new Completion(job, new Outcome.Expired(EXPIRED), RetryPolicy.never()));
            }
            boolean[] applied = rt.finisher.apply(tx, items);
            for (int i = 0; i < applied.length; i++) {
                if (applied[i]) {
                    n[0]++;
                    wake.add(expired.get(i).queue());
                    log.info("job {} ({}): {}; {}", expired.get(i).lease(), expired.get(i).kind(), EXPIRED,
                            expired.get(i).attemptsLeft() ? "put back for redelivery" : "that was its last attempt");
                }
            }
            wake.addAll(tx.queuesToWake());
            return null;
        });
        rt.counters.rescued.add(n[0]);
        wake.forEach(rt.wakeup::signal);
        return n[0];
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
